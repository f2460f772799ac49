// skill-conform adapter for the C# port of toolnexus (protocol version 1).
//
// Speaks ../PROTOCOL.md: JSON Lines requests on stdin, one reply line per request on stdout,
// free-form diagnostics on stderr. It calls only the referenced toolnexus package (NuGet
// `Toolnexus`, or a checkout's project) through its public API and contains no toolnexus code:
//
//   SkillSource.ListSkills(new SkillSource.LoadOptions { Dirs = roots })            → inventory
//   SkillSource.LoadWith(new SkillSource.LoadOptions { Dirs, Filter, SampleLimit }) → src
//   await src.Tool.ExecuteAsync(new Dictionary<string, object?> { ["name"] = n })   → loads
//   src.Prompt()                                                                    → prompt
//   src.Tool.Name / Description / InputSchema                                       → tool
//
// CONVERSIONS: everything this adapter does to the port's values before they go on the wire.
// Anything not listed is passed through as the port returned it (order, spelling, whitespace).
//
//   1. SkillInfo.Description == null → "description": null.
//   2. SkillSkip.Detail: read by reflection, because releases before the D6 change have no
//      such property. Absent property or a null value → "detail": null; a present string is
//      sent as is, including "" (the newer releases' default).
//   3. Wire names: Name → name, Description → description, Location → location, Reason →
//      reason, Detail → detail, ToolResult.Output → output, IsError → isError, ITool.InputSchema
//      → inputSchema. ToolResult.Metadata, ITool.Source and SkillSource.Skipped are not part of
//      the protocol and are dropped.
//   4. ITool.ExecuteAsync returns a Task; it is awaited. loads[i].name echoes the request.
//   5. InputSchema (IDictionary<string, object?>) is written as JSON recursively: dictionaries
//      → objects (keys in the dictionary's enumeration order), lists → arrays, string / bool /
//      number / null as themselves; any other value through System.Text.Json's serializer.
//   6. An exception from the port → {"case":…,"error":"<full type name>: <message>"}; the
//      stack trace goes to stderr.
//   7. A string the JSON writer cannot encode (a lone UTF-16 surrogate) → {"case":…,
//      "error":"adapter: cannot encode reply: …"}.
//   8. hello's version is the library assembly's AssemblyInformationalVersion (which NuGet
//      packs from the package version) with any "+build-metadata" suffix (the commit id the
//      SDK appends) cut off; the assembly version when that attribute is missing.
//
// Inputs go to the port unchanged: roots as a string[] in request order; filter as a
// Dictionary<string, bool> of the received entries ({} stays an empty dictionary, never
// null); sampleLimit as the received integer (a value outside the int range cannot be
// expressed: that case gets an "adapter:" error reply).
//
// STREAMS. Before the library is touched, the adapter keeps the raw stdout Stream
// (Console.OpenStandardOutput) for its replies and points Console.Out at stderr, so anything
// the library writes through Console.Out / Console.Write goes to stderr (the port's own
// warnings already use Console.Error). .NET cannot re-point file descriptor 1 portably, so
// native code or a child process writing to fd 1 directly would still reach stdout; the
// skill loader does neither.

using System.Collections;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using Toolnexus;

namespace SkillConform.Adapter;

internal sealed class BadRequest(string message) : Exception(message);

internal static class Program
{
    private const int Protocol = 1;
    private const string Port = "csharp";
    private const string Library = "toolnexus";

    private static Stream _reply = Stream.Null;

    private static readonly JsonWriterOptions WriterOptions = new()
    {
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping, // keep non-ASCII as UTF-8; still escapes " \ and controls
        Indented = false,
    };

    private static async Task<int> Main()
    {
        _reply = Console.OpenStandardOutput();
        Console.SetOut(Console.Error);

        using var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        while (true)
        {
            var line = await input.ReadLineAsync();
            if (line is null) return 0; // EOF
            if (!await Handle(line)) return 0; // bye
        }
    }

    private static void Log(string msg) => Console.Error.WriteLine($"[adapter-csharp] {msg}");

    private static string Describe(Exception e)
    {
        var name = e.GetType().FullName ?? e.GetType().Name;
        return string.IsNullOrEmpty(e.Message) ? name : $"{name}: {e.Message}";
    }

    private static void Send(Action<Utf8JsonWriter> write)
    {
        var buf = new MemoryStream();
        using (var w = new Utf8JsonWriter(buf, WriterOptions)) write(w);
        buf.WriteByte((byte)'\n');
        _reply.Write(buf.GetBuffer(), 0, (int)buf.Length);
        _reply.Flush();
    }

    private static void SendError(string? caseId, string message) => Send(w =>
    {
        w.WriteStartObject();
        if (caseId is not null) w.WriteString("case", caseId);
        w.WriteString("error", message);
        w.WriteEndObject();
    });

    /// <summary>An assembly's informational version (without a "+commit" suffix), for hello's libraries.</summary>
    private static string AssemblyVersion(string name)
    {
        try
        {
            var asm = Assembly.Load(name);
            var info = asm.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
            return info?.Split('+')[0] ?? asm.GetName().Version?.ToString() ?? "unknown";
        }
        catch (Exception)
        {
            return "not installed";
        }
    }

    private static string LibraryVersion()
    {
        var asm = typeof(SkillSource).Assembly;
        var info = asm.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
        if (!string.IsNullOrEmpty(info))
        {
            var plus = info.IndexOf('+');
            return plus >= 0 ? info[..plus] : info;
        }
        return asm.GetName().Version?.ToString() ?? "unknown";
    }

    // ---- requests

    private sealed record Run(string Case, string[] Roots, int SampleLimit, Dictionary<string, bool> Filter,
        string[] Load, bool Tool);

    private static JsonNode Field(JsonObject req, string key)
    {
        if (!req.TryGetPropertyValue(key, out var v) || v is null)
            throw new BadRequest(req.ContainsKey(key) ? $"run: field '{key}' must not be null" : $"run: missing field '{key}'");
        return v;
    }

    private static string Show(JsonNode n)
    {
        var s = n.ToJsonString();
        return s.Length > 80 ? s[..80] : s;
    }

    private static string Str(JsonNode n, string what)
    {
        if (n is JsonValue v && v.GetValueKind() == JsonValueKind.String) return v.GetValue<string>();
        throw new BadRequest($"run: {what} must be a string, got {Show(n)}");
    }

    private static Run ParseRun(JsonObject req)
    {
        var caseId = Str(Field(req, "case"), "field 'case'");

        if (Field(req, "roots") is not JsonArray rootsArr)
            throw new BadRequest($"run: field 'roots' must be an array of strings, got {Show(Field(req, "roots"))}");
        var roots = rootsArr.Select(r => r is null ? throw new BadRequest("run: field 'roots' must be an array of strings")
            : Str(r, "each of 'roots'")).ToArray();

        var sl = Field(req, "sampleLimit");
        if (sl is not JsonValue slv || slv.GetValueKind() != JsonValueKind.Number)
            throw new BadRequest($"run: field 'sampleLimit' must be an integer, got {Show(sl)}");
        var raw = slv.ToJsonString();
        if (raw.Contains('.') || raw.Contains('e') || raw.Contains('E'))
            throw new BadRequest($"run: field 'sampleLimit' must be an integer, got {raw}");

        if (Field(req, "filter") is not JsonObject filterObj)
            throw new BadRequest($"run: field 'filter' must be an object of booleans, got {Show(Field(req, "filter"))}");
        var filter = new Dictionary<string, bool>();
        foreach (var (k, v) in filterObj)
        {
            if (v is JsonValue fv && fv.GetValueKind() is JsonValueKind.True or JsonValueKind.False)
                filter[k] = fv.GetValue<bool>();
            else throw new BadRequest("run: field 'filter' must be an object of booleans");
        }

        if (Field(req, "load") is not JsonArray loadArr)
            throw new BadRequest($"run: field 'load' must be an array of strings, got {Show(Field(req, "load"))}");
        var load = loadArr.Select(n => n is null ? throw new BadRequest("run: field 'load' must be an array of strings")
            : Str(n, "each of 'load'")).ToArray();

        var t = Field(req, "tool");
        if (t is not JsonValue tv || tv.GetValueKind() is not (JsonValueKind.True or JsonValueKind.False))
            throw new BadRequest($"run: field 'tool' must be a boolean, got {Show(t)}");

        // An integer outside the int range is the adapter's limit, not a bad request.
        if (!long.TryParse(raw, out var l) || l < int.MinValue || l > int.MaxValue)
            throw new OutOfRange(caseId, raw);
        return new Run(caseId, roots, (int)l, filter, load, tv.GetValue<bool>());
    }

    private sealed class OutOfRange(string caseId, string raw) : Exception
    {
        public string CaseId { get; } = caseId;
        public string Raw { get; } = raw;
    }

    // ---- one case

    private static async Task<Action<Utf8JsonWriter>> RunCase(Run run)
    {
        var inv = SkillSource.ListSkills(new SkillSource.LoadOptions { Dirs = run.Roots });
        var skills = inv.Skills.Select(s => (s.Name, s.Description, s.Location)).ToList();
        var skipped = inv.Skipped.Select(k => (k.Location, k.Reason, Detail: DetailOf(k))).ToList();

        var src = SkillSource.LoadWith(new SkillSource.LoadOptions
        {
            Dirs = run.Roots,
            Filter = run.Filter,
            SampleLimit = run.SampleLimit,
        });

        var loads = new List<(string Name, bool IsError, string Output)>();
        foreach (var name in run.Load)
        {
            var r = await src.Tool.ExecuteAsync(new Dictionary<string, object?> { ["name"] = name });
            loads.Add((name, r.IsError, r.Output));
        }

        var prompt = src.Prompt();
        var tool = src.Tool;
        var (toolName, toolDescription, toolSchema) = (tool.Name, tool.Description, tool.InputSchema);

        return w =>
        {
            w.WriteStartObject();
            w.WriteString("case", run.Case);
            w.WriteStartObject("inventory");
            w.WriteStartArray("skills");
            foreach (var (name, description, location) in skills)
            {
                w.WriteStartObject();
                w.WriteString("name", name);
                if (description is null) w.WriteNull("description"); else w.WriteString("description", description);
                w.WriteString("location", location);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteStartArray("skipped");
            foreach (var (location, reason, detail) in skipped)
            {
                w.WriteStartObject();
                w.WriteString("location", location);
                w.WriteString("reason", reason);
                if (detail is null) w.WriteNull("detail"); else w.WriteString("detail", detail);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteEndObject();
            w.WriteStartArray("loads");
            foreach (var (name, isError, output) in loads)
            {
                w.WriteStartObject();
                w.WriteString("name", name);
                w.WriteBoolean("isError", isError);
                w.WriteString("output", output);
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteString("prompt", prompt);
            if (run.Tool)
            {
                w.WriteStartObject("tool");
                w.WriteString("name", toolName);
                w.WriteString("description", toolDescription);
                w.WritePropertyName("inputSchema");
                WriteValue(w, toolSchema);
                w.WriteEndObject();
            }
            w.WriteEndObject();
        };
    }

    private static string? DetailOf(object skip)
    {
        var p = skip.GetType().GetProperty("Detail", BindingFlags.Public | BindingFlags.Instance);
        return p?.GetValue(skip) as string;
    }

    private static void WriteValue(Utf8JsonWriter w, object? v)
    {
        switch (v)
        {
            case null: w.WriteNullValue(); break;
            case string s: w.WriteStringValue(s); break;
            case bool b: w.WriteBooleanValue(b); break;
            case int or long or short or byte or sbyte or ushort or uint:
                w.WriteNumberValue(Convert.ToInt64(v)); break;
            case ulong ul: w.WriteNumberValue(ul); break;
            case double d: w.WriteNumberValue(d); break;
            case float f: w.WriteNumberValue(f); break;
            case decimal m: w.WriteNumberValue(m); break;
            case JsonNode node: node.WriteTo(w); break;
            case JsonElement el: el.WriteTo(w); break;
            case IDictionary<string, object?> dict:
                w.WriteStartObject();
                foreach (var (k, x) in dict) { w.WritePropertyName(k); WriteValue(w, x); }
                w.WriteEndObject();
                break;
            case IDictionary nd:
                w.WriteStartObject();
                foreach (DictionaryEntry e in nd) { w.WritePropertyName(e.Key.ToString() ?? ""); WriteValue(w, e.Value); }
                w.WriteEndObject();
                break;
            case IEnumerable seq:
                w.WriteStartArray();
                foreach (var x in seq) WriteValue(w, x);
                w.WriteEndArray();
                break;
            default:
                JsonSerializer.Serialize(w, v, v.GetType());
                break;
        }
    }

    // ---- dispatch

    private static async Task<bool> Handle(string text)
    {
        if (string.IsNullOrWhiteSpace(text)) return true;
        JsonNode? node;
        try { node = JsonNode.Parse(text); }
        catch (JsonException e) { SendError(null, $"request is not JSON: {e.Message}"); return true; }
        if (node is not JsonObject req) { SendError(null, "request is not a JSON object"); return true; }

        var cmd = req["cmd"] is JsonValue cv && cv.GetValueKind() == JsonValueKind.String ? cv.GetValue<string>() : null;
        if (cmd == "bye") return false;
        if (cmd == "hello")
        {
            var p = req["protocol"];
            if (p is not JsonValue pv || pv.GetValueKind() != JsonValueKind.Number || pv.ToJsonString() != Protocol.ToString())
            {
                SendError(null, $"unsupported protocol {p?.ToJsonString() ?? "null"}; this adapter speaks {Protocol}");
                return true;
            }
            string version;
            try
            {
                // Load the library now (an empty list call: no roots, no output), so a load failure
                // is this reply and start-up cost falls in the handshake's time budget.
                version = LibraryVersion();
                _ = SkillSource.ListSkills(new SkillSource.LoadOptions { Dirs = Array.Empty<string>() });
            }
            catch (Exception e)
            {
                Log(e.ToString());
                SendError(null, $"cannot load {Library}: {Describe(e)}");
                return true;
            }
            Send(w =>
            {
                w.WriteStartObject();
                w.WriteNumber("protocol", Protocol);
                w.WriteString("port", Port);
                w.WriteString("library", Library);
                w.WriteString("version", version);
                w.WriteString("runtime", RuntimeInformation.FrameworkDescription);
                // The versions of what decides verdicts, the YAML library first.
                w.WriteStartObject("libraries");
                w.WriteString("YamlDotNet", AssemblyVersion("YamlDotNet"));
                w.WriteEndObject();
                w.WriteEndObject();
            });
            return true;
        }
        if (cmd != "run")
        {
            SendError(null, $"unknown cmd {req["cmd"]?.ToJsonString() ?? "null"}");
            return true;
        }

        Run run;
        try { run = ParseRun(req); }
        catch (BadRequest e) { SendError(null, e.Message); return true; }
        catch (OutOfRange e)
        {
            SendError(e.CaseId, $"adapter: sampleLimit {e.Raw} does not fit the port's int SampleLimit");
            return true;
        }

        Action<Utf8JsonWriter> reply;
        try { reply = await RunCase(run); }
        catch (Exception e)
        {
            Log($"case {run.Case}: the port threw");
            Log(e.ToString());
            SendError(run.Case, Describe(e));
            return true;
        }
        try { Send(reply); }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException or JsonException or NotSupportedException)
        {
            Log($"case {run.Case}: reply not encodable: {e}");
            SendError(run.Case, $"adapter: cannot encode reply: {Describe(e)}");
        }
        return true;
    }
}
