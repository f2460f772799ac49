#!/usr/bin/env bash
# Set up the Elixir adapter: fetch and compile toolnexus with Mix.install, once.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  a Hex release of toolnexus
#            → Mix.install([{:toolnexus, "== VERSION"}, {:jason, "~> 1.4"}])
#   PATH     a local checkout of the toolnexus repository (its root or its elixir/ folder)
#            → Mix.install([{:toolnexus, path: "<checkout>/elixir"}, {:jason, "~> 1.4"}])
#
# The last line on stdout is the SPEC for run.sh (the version, or the absolute package path):
#   bash adapters/elixir/run.sh "$(setup.sh | tail -n1)"
# The lock: adapter.exs's Mix.install pins yaml_elixir and yamerl (the YAML libraries that decide
# verdicts) to exact versions with `override: true`.
# Mix.install caches the compiled installation under MIX_INSTALL_DIR (default
# .cache/mix-installs); MIX_HOME and HEX_HOME default to .cache/mix and .cache/hex. A second
# run reuses the installation without the network. On failure: exit 1 with one line on
# stderr naming the cause; the output behind it is kept in .cache/setup-*.log.
set -euo pipefail
PORT=elixir
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
command -v elixir >/dev/null 2>&1 || die "elixir not found (hint: install Elixir >= 1.16 with its Erlang/OTP; Debian 12's elixir package is 1.14; Mix.install also needs Hex, repo.hex.pm, reachable)"
command -v mix >/dev/null 2>&1 || die "mix not found (hint: install Elixir >= 1.16; mix ships with it)"
ex_version="$(elixir -e 'IO.puts(System.version())' 2>/dev/null | tail -n1)" || die "elixir does not start"
elixir -e 'System.halt(if Version.match?(System.version(), ">= 1.16.0"), do: 0, else: 1)' >/dev/null 2>&1 \
  || die "elixir is $ex_version; toolnexus needs Elixir >= 1.16 (Debian 12's elixir package is 1.14; its mix.exs asks for it, and Mix.install needs Hex; one run of the skill modules compiled by hand on 1.14 is recorded in adapters/elixir/README.md)"

if [ "$mode" = version ]; then
  spec="$version"
  tag="$version"
  what="toolnexus $version from Hex"
else
  if [ -f "$checkout/elixir/mix.exs" ]; then
    spec="$checkout/elixir"
  elif [ -f "$checkout/mix.exs" ]; then
    spec="$checkout"
  else
    die "no mix.exs in $checkout/elixir or $checkout: not a toolnexus checkout"
  fi
  grep -q 'app: :toolnexus' "$spec/mix.exs" || die "$spec/mix.exs is not the toolnexus project (no app: :toolnexus)"
  tag="$(local_key "$spec")"
  what="the checkout's $spec"
fi

mkdir -p "$cache" || die "cannot create $cache"
export MIX_HOME="${MIX_HOME:-$cache/mix}" HEX_HOME="${HEX_HOME:-$cache/hex}"
export MIX_INSTALL_DIR="${MIX_INSTALL_DIR:-$cache/mix-installs}"
export MIX_QUIET=1
log="$cache/setup-$tag.log"
: >"$log"

unreachable() { grep -qiE 'nxdomain|econnrefused|timeout|closed|failed to fetch|could not fetch|request failed|httpc|ehostunreach|enetunreach' "$log"; }

# Hex itself (Mix.install would otherwise ask on stdin whether to install it).
if ! mix hex.info </dev/null >/dev/null 2>&1; then
  if ! mix local.hex --force --if-missing </dev/null >>"$log" 2>&1; then
    unreachable && die "Hex is not reachable from this machine (mix local.hex could not download Hex); log: $log"
    die "mix local.hex failed ($(grep -m1 -iE 'error|could not' "$log" | head -c 200)); log: $log"
  fi
fi

progress "installing $what (Mix.install)"
if ! elixir "$here/adapter.exs" --install-only "$spec" </dev/null >>"$log" 2>&1; then
  unreachable && die "Hex is not reachable from this machine, so $what cannot be installed; log: $log"
  die "Mix.install failed for $what ($(grep -vE '^\s*$' "$log" | tail -n1 | head -c 200)); log: $log"
fi

printf '%s\n' "$spec"
