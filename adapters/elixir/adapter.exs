# skill-conform adapter for the Elixir port of toolnexus (protocol version 1).
#
# Speaks ../PROTOCOL.md: JSON Lines requests on stdin, one reply line per request on stdout,
# free-form diagnostics on stderr. It installs the toolnexus package with Mix.install and
# calls only its public API; it contains no toolnexus code:
#
#   Toolnexus.Skill.list(%{dirs: roots})                                     → inventory
#   Toolnexus.Skill.load(%{dirs: roots, filter: filter, sample_limit: n})    → src
#   src.tool.execute.(%{"name" => n}, nil)                                   → loads
#   src.prompt                   (a string field; called if a release makes it a function)
#   src.tool.name / .description / .input_schema                             → tool
#
# Usage (run.sh does this; see README.md):
#
#   elixir adapter.exs [--reply-fd N] [--install-only] SPEC
#
#   SPEC  a Hex version of toolnexus ("0.20.0" → {:toolnexus, "== 0.20.0"}) or the absolute
#         path of a toolnexus Elixir package (a checkout's elixir/ folder → path: dep).
#         Required: the pinned version lives in adapters/ports.toml.
#   --install-only  run Mix.install and exit 0 (setup.sh uses it to fetch and compile).
#   --reply-fd N    write replies to file descriptor N (run.sh passes 3 after pointing fd 1
#                   at stderr); without it, replies go to the original standard output.
#
# CONVERSIONS: everything this adapter does to the port's values before they go on the wire.
# Anything not listed is passed through as the port returned it (order, spelling, whitespace).
#
#   1. nil → null: Info.description nil → "description": null; a skip's detail nil, or a skip
#      map without a :detail key (releases before D6) → "detail": null. "" stays "".
#   2. Wire names: ToolResult.is_error → isError, Tool.input_schema → inputSchema; atom keys of
#      the port's maps (:name, :location, :reason, :detail) → their names. ToolResult.metadata,
#      Tool.source, Source.skills and Source.skipped are not part of the protocol: dropped.
#   3. Source.prompt is a string field; it is sent as is (called first if it is a function).
#   4. execute is synchronous; it is called with the context nil. loads[i].name echoes the
#      requested name.
#   5. An exception raised by the port → {"case":…,"error":"<Module>: <message>"} (e.g.
#      "File.Error: …"); a throw or exit → "throw: <inspect>" / "exit: <inspect>". The stack
#      trace goes to stderr.
#   6. A reply Jason cannot encode (a binary that is not valid UTF-8, e.g. a file name that
#      is not UTF-8, or a term with no JSON form) → {"case":…,"error":"adapter: cannot encode
#      reply: …"}.
#   7. hello's version is Application.spec(:toolnexus, :vsn) (from the installed package's
#      metadata, or the checkout's mix.exs), charlist → string.
#
# Inputs go to the port unchanged: roots as a list of strings in request order (never a bare
# string), filter as the decoded map with string keys and boolean values (%{} stays %{}),
# sampleLimit as the decoded integer.
#
# STREAMS. Three layers keep library output off the reply stream:
#   * run.sh points fd 1 at stderr (exec 3>&1 1>&2) before the VM starts and passes
#     --reply-fd 3, so anything the VM, a NIF or a child process writes to fd 1 lands on
#     stderr. Replies are written to /dev/fd/3 opened as a raw file (synchronous writes).
#   * this process's group leader is :standard_error, so IO.puts/IO.write without a device
#     (including Mix.install's progress output) go to stderr even without run.sh;
#   * the Erlang logger's :default handler is re-added with type :standard_error.
# Requests are read from the original group leader (standard input).

{opts, args, invalid} =
  OptionParser.parse(System.argv(), strict: [reply_fd: :integer, install_only: :boolean])

if invalid != [] or length(args) != 1 do
  IO.puts(:stderr, "usage: elixir adapter.exs [--reply-fd N] [--install-only] VERSION|PATH")
  System.halt(2)
end

spec = List.first(args)

# --- streams: before anything else can print.
proto_in = Process.group_leader()
Process.group_leader(self(), Process.whereis(:standard_error))

try do
  :logger.remove_handler(:default)
  :logger.add_handler(:default, :logger_std_h, %{config: %{type: :standard_error}})
rescue
  _ -> :ok
catch
  _, _ -> :ok
end

reply_sink =
  case opts[:reply_fd] do
    nil ->
      {:io, proto_in}

    fd ->
      case :file.open(~c"/dev/fd/#{fd}", [:append, :raw, :binary]) do
        {:ok, f} ->
          {:file, f}

        {:error, reason} ->
          IO.puts(:stderr, "[adapter-elixir] cannot open fd #{fd} for replies: #{inspect(reason)}")
          System.halt(1)
      end
  end

# --- caches: default to adapters/elixir/.cache when the runner did not set them.
cache = Path.join(__DIR__, ".cache")

for {var, sub} <- [{"MIX_HOME", "mix"}, {"HEX_HOME", "hex"}, {"MIX_INSTALL_DIR", "mix-installs"}] do
  if System.get_env(var) in [nil, ""], do: System.put_env(var, Path.join(cache, sub))
end

# --- the library.
toolnexus_dep =
  if Regex.match?(~r/\A[0-9][0-9A-Za-z.+-]*\z/, spec) do
    {:toolnexus, "== " <> spec}
  else
    {:toolnexus, path: Path.expand(spec)}
  end

install_error =
  try do
    # The lock: the YAML libraries that decide verdicts, at exact versions (unverified here: Hex
    # is not reachable from the machines we have).
    Mix.install([
      toolnexus_dep,
      {:jason, "~> 1.4"},
      {:yaml_elixir, "== 2.11.0", override: true},
      {:yamerl, "== 0.10.0", override: true}
    ])
    nil
  rescue
    e -> "#{inspect(e.__struct__)}: #{Exception.message(e)}"
  catch
    kind, reason -> "#{kind}: #{inspect(reason)}"
  end

if opts[:install_only] do
  if install_error do
    IO.puts(:stderr, install_error)
    System.halt(1)
  end

  System.halt(0)
end

defmodule SkillConform.Adapter do
  @protocol 1
  @port "elixir"
  @library "toolnexus"

  # Without a successful Mix.install there is no Jason to parse requests with: every request
  # then gets {"error":"cannot load toolnexus: …"} (no case), written by hand below.
  def main(proto_in, sink, install_error) when is_binary(install_error) do
    line = ~s({"error":) <> json_string("cannot load #{@library}: Mix.install failed: #{install_error}") <> "}"

    Stream.repeatedly(fn -> IO.read(proto_in, :line) end)
    |> Enum.take_while(&is_binary/1)
    |> Enum.each(fn req ->
      cond do
        String.trim(req) == "" -> :ok
        String.contains?(req, ~s("bye")) -> throw(:bye)
        true -> write(sink, line)
      end
    end)
  catch
    :bye -> :ok
  end

  def main(proto_in, sink, nil), do: loop(proto_in, sink, nil)

  defp json_string(s) do
    body =
      for <<c::utf8 <- s>>, into: "" do
        case c do
          ?" -> ~S(\")
          ?\\ -> ~S(\\)
          c when c < 0x20 -> "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0")
          c -> <<c::utf8>>
        end
      end

    ~s(") <> body <> ~s(")
  end

  defp write(sink, line) do
    case sink do
      {:file, f} -> :ok = :file.write(f, [line, "\n"])
      {:io, dev} -> IO.write(dev, [line, "\n"])
    end
  end

  defp loop(proto_in, sink, install_error) do
    case IO.read(proto_in, :line) do
      :eof ->
        :ok

      {:error, reason} ->
        log("stdin: #{inspect(reason)}")
        :ok

      line ->
        case handle(String.trim_trailing(line, "\n"), install_error) do
          :bye ->
            :ok

          :none ->
            loop(proto_in, sink, install_error)

          {:reply, map} ->
            send_line(sink, map)
            loop(proto_in, sink, install_error)
        end
    end
  end

  defp send_line(sink, map) do
    line =
      case encode(map) do
        {:ok, json} ->
          json

        {:error, why} ->
          log("reply not encodable: #{why}")

          case map do
            %{"case" => c} when is_binary(c) ->
              Jason.encode!(%{"case" => c, "error" => "adapter: cannot encode reply: #{why}"})

            _ ->
              Jason.encode!(%{"error" => "adapter: cannot encode reply: #{why}"})
          end
      end

    write(sink, line)
  end

  defp encode(map) do
    {:ok, Jason.encode!(map)}
  rescue
    e -> {:error, "#{inspect(e.__struct__)}: #{Exception.message(e)}"}
  end

  defp log(msg), do: IO.puts(:stderr, "[adapter-elixir] #{msg}")

  defp describe(kind, reason) do
    case kind do
      :error ->
        e = Exception.normalize(:error, reason, [])
        msg = Exception.message(e)
        name = inspect(e.__struct__)
        if msg == "", do: name, else: "#{name}: #{msg}"

      other ->
        "#{other}: #{inspect(reason)}"
    end
  end

  # --- requests

  defp handle(text, install_error) do
    if String.trim(text) == "" do
      :none
    else
      case Jason.decode(text) do
        {:error, e} -> {:reply, %{"error" => "request is not JSON: #{Exception.message(e)}"}}
        {:ok, req} when is_map(req) -> dispatch(req, install_error)
        {:ok, _} -> {:reply, %{"error" => "request is not a JSON object"}}
      end
    end
  end

  defp dispatch(%{"cmd" => "bye"}, _), do: :bye

  defp dispatch(%{"cmd" => "hello"} = req, install_error) do
    cond do
      req["protocol"] !== @protocol ->
        {:reply,
         %{"error" => "unsupported protocol #{Jason.encode!(req["protocol"])}; this adapter speaks #{@protocol}"}}

      install_error != nil ->
        {:reply, %{"error" => "cannot load #{@library}: Mix.install failed: #{install_error}"}}

      not Code.ensure_loaded?(Toolnexus.Skill) ->
        {:reply, %{"error" => "cannot load #{@library}: module Toolnexus.Skill is not available"}}

      true ->
        vsn = Application.spec(:toolnexus, :vsn)

        {:reply,
         %{
           "protocol" => @protocol,
           "port" => @port,
           "library" => @library,
           "version" => if(vsn, do: to_string(vsn), else: "unknown"),
           "runtime" => "Elixir #{System.version()} (OTP #{System.otp_release()})",
           # The versions of what decides verdicts, the YAML libraries first.
           "libraries" =>
             Map.new([:yaml_elixir, :yamerl], fn app ->
               {to_string(app), to_string(Application.spec(app, :vsn) || "not installed")}
             end)
         }}
    end
  end

  defp dispatch(%{"cmd" => "run"} = req, _) do
    case parse_run(req) do
      {:error, msg} ->
        {:reply, %{"error" => msg}}

      {:ok, run} ->
        try do
          {:reply, run_case(run)}
        catch
          kind, reason ->
            log("case #{run.case}: the port raised")
            log(Exception.format(kind, reason, __STACKTRACE__))
            {:reply, %{"case" => run.case, "error" => describe(kind, reason)}}
        end
    end
  end

  defp dispatch(req, _), do: {:reply, %{"error" => "unknown cmd #{Jason.encode!(req["cmd"])}"}}

  defp field(req, key, check, what) do
    case Map.fetch(req, key) do
      :error ->
        throw({:bad, "run: missing field '#{key}'"})

      {:ok, v} ->
        if check.(v),
          do: v,
          else: throw({:bad, "run: field '#{key}' must be #{what}, got #{String.slice(Jason.encode!(v), 0, 80)}"})
    end
  end

  defp parse_run(req) do
    strings? = fn v -> is_list(v) and Enum.all?(v, &is_binary/1) end

    run = %{
      case: field(req, "case", &is_binary/1, "a string"),
      roots: field(req, "roots", strings?, "an array of strings"),
      sample_limit: field(req, "sampleLimit", &is_integer/1, "an integer"),
      filter:
        field(req, "filter", fn v -> is_map(v) and Enum.all?(v, fn {_, b} -> is_boolean(b) end) end,
          "an object of booleans"),
      load: field(req, "load", strings?, "an array of strings"),
      tool: field(req, "tool", &is_boolean/1, "a boolean")
    }

    {:ok, run}
  catch
    {:bad, msg} -> {:error, msg}
  end

  defp run_case(run) do
    inv = Toolnexus.Skill.list(%{dirs: run.roots})

    inventory = %{
      "skills" =>
        Enum.map(inv.skills, fn s ->
          %{"name" => s.name, "description" => s.description, "location" => s.location}
        end),
      "skipped" =>
        Enum.map(inv.skipped, fn k ->
          %{"location" => k.location, "reason" => k.reason, "detail" => Map.get(k, :detail)}
        end)
    }

    src = Toolnexus.Skill.load(%{dirs: run.roots, filter: run.filter, sample_limit: run.sample_limit})

    loads =
      Enum.map(run.load, fn name ->
        r = src.tool.execute.(%{"name" => name}, nil)
        %{"name" => name, "isError" => r.is_error, "output" => r.output}
      end)

    prompt = if is_function(src.prompt, 0), do: src.prompt.(), else: src.prompt

    reply = %{"case" => run.case, "inventory" => inventory, "loads" => loads, "prompt" => prompt}

    if run.tool do
      t = src.tool

      Map.put(reply, "tool", %{
        "name" => t.name,
        "description" => t.description,
        "inputSchema" => t.input_schema
      })
    else
      reply
    end
  end
end

SkillConform.Adapter.main(proto_in, reply_sink, install_error)
System.halt(0)
