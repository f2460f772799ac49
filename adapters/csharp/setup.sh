#!/usr/bin/env bash
# Build the C# adapter against the toolnexus C# port.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  a NuGet release of Toolnexus → dotnet build -p:ToolnexusVersion=VERSION, outputs under
#            .cache/build-VERSION/
#   PATH     a local checkout of the toolnexus repository (its root, its csharp/ folder, or
#            the folder holding Toolnexus.csproj) → dotnet build -p:ToolnexusProject=<that
#            csproj>, outputs under .cache/build-local-<hash of the path>/ (the referenced
#            project's bin/obj go there too, through --artifacts-path)
#
# The last line on stdout is the built adapter dll; start the adapter with
#   dotnet "$(setup.sh | tail -n1)"
# The lock: Adapter.csproj references YamlDotNet (the library that decides verdicts) at an exact
# version, which NuGet prefers over the range toolnexus asks for.
# Packages go to NUGET_PACKAGES (default .cache/nuget). On failure: exit 1 with one line on
# stderr naming the cause; the build output is kept in .cache/setup-*.log.
set -euo pipefail
PORT=csharp
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
command -v dotnet >/dev/null 2>&1 || die "dotnet not found (hint: install the .NET 10 SDK; this adapter has never run: no machine it was tried on had one)"
sdks="$(dotnet --list-sdks 2>/dev/null || true)"
printf '%s\n' "$sdks" | grep -qE '^(1[0-9]|[2-9][0-9])\.' \
  || die "no .NET SDK >= 10 (found: $(printf '%s' "$sdks" | awk '{print $1}' | paste -sd, - || true)); toolnexus targets net10.0 (hint: install the .NET 10 SDK)"

mkdir -p "$cache" || die "cannot create $cache"
export NUGET_PACKAGES="${NUGET_PACKAGES:-$cache/nuget}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export DOTNET_CLI_HOME="${DOTNET_CLI_HOME:-$cache/dotnet-home}"

if [ "$mode" = version ]; then
  tag="$version"
  props=(-p:ToolnexusVersion="$version")
  what="Toolnexus $version from NuGet"
else
  proj=""
  for cand in "$checkout/csharp/src/Toolnexus/Toolnexus.csproj" "$checkout/src/Toolnexus/Toolnexus.csproj" "$checkout/Toolnexus.csproj"; do
    if [ -f "$cand" ]; then proj="$cand"; break; fi
  done
  [ -n "$proj" ] || die "no Toolnexus.csproj under $checkout (looked in csharp/src/Toolnexus, src/Toolnexus, .)"
  tag="$(local_key "$proj")"
  props=(-p:ToolnexusProject="$proj")
  what="the checkout's $proj"
fi

art="$cache/build-$tag"
log="$cache/setup-$tag.log"
: >"$log"
progress "installing $what (dotnet build)"
# `dotnet build` is incremental: a second run with nothing changed is quick and offline.
if ! dotnet build "$here/Adapter.csproj" -c Release --artifacts-path "$art" "${props[@]}" >>"$log" 2>&1; then
  if grep -qE 'NU1301|Unable to load the service index' "$log"; then
    die "NuGet is not reachable from this machine, so $what cannot be restored; log: $log"
  elif grep -qE 'NU1101|NU1102|NU1103' "$log"; then
    die "NuGet has no $what ($(grep -m1 -oE 'NU110[123][^[]*' "$log" | head -c 200)); log: $log"
  else
    die "dotnet build failed for $what ($(grep -m1 -E 'error [A-Z]+[0-9]+' "$log" | sed -E 's/^ *//' | head -c 200)); log: $log"
  fi
fi

dll="$(find "$art/bin" -name skill-conform-adapter-csharp.dll -path '*release*' 2>/dev/null | head -n1)"
[ -n "$dll" ] || dll="$(find "$art/bin" -name skill-conform-adapter-csharp.dll 2>/dev/null | head -n1)"
[ -n "$dll" ] || die "the build succeeded but no skill-conform-adapter-csharp.dll is under $art/bin; log: $log"
printf '%s\n' "$dll"
