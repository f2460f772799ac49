#!/usr/bin/env bash
# Set up the writing tool: Claude Code's `claude` CLI, the published npm package
# @anthropic-ai/claude-code, for `claude plugin validate --json`.
#
#   setup.sh VERSION
#
#   VERSION  an npm release of @anthropic-ai/claude-code (the pin lives in adapters/ports.toml)
#            → `npm install @anthropic-ai/claude-code@VERSION` into .cache/npm-VERSION/
#
# The last line on stdout is the `claude` executable: the native binary the package brings as
# the platform's optional dependency (@anthropic-ai/claude-code-<platform>/claude). No install
# script runs (--ignore-scripts): the package's postinstall only copies that binary over its
# `bin/claude.exe` placeholder, which is not needed when the binary is called directly.
# Idempotent: an installed VERSION is reused without running npm.
# On failure: exit 1 with one line on stderr naming the cause (the observer reports the column
# "not measured" with it); npm's output is kept in .cache/setup-npm-VERSION.log.
#
# Environment: npm_config_cache (default .cache/npm).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="$here/.cache"
package="@anthropic-ai/claude-code"

die() { printf 'setup.sh (claude-code): %s\n' "$*" >&2; exit 1; }

[ "$#" -eq 1 ] || die "usage: setup.sh VERSION (got $# arguments)"
version="$1"
[[ "$version" =~ ^[0-9][0-9A-Za-z.+-]*$ ]] || die "not a version: $version"
command -v node >/dev/null 2>&1 || die "node not found (hint: install Node.js >= 18)"
command -v npm >/dev/null 2>&1 || die "npm not found (hint: install npm, it ships with Node.js)"

mkdir -p "$cache" || die "cannot create $cache"
export npm_config_cache="${npm_config_cache:-$cache/npm}"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false npm_config_loglevel=error

prefix="$cache/npm-$version"
pkg="$prefix/node_modules/$package"
# The one platform package npm picked (its optional dependencies are filtered by os and cpu).
native_binary() {
  local found
  for found in "$prefix"/node_modules/@anthropic-ai/claude-code-*/claude; do
    [ -x "$found" ] && { printf '%s\n' "$found"; return 0; }
  done
  return 1
}
log="$cache/setup-npm-$version.log"

installed() {
  native_binary >/dev/null && [ "$(node -e 'try{console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).version)}catch{}' "$pkg/package.json")" = "$version" ]
}

if ! installed; then
  : >"$log"
  rm -rf -- "$prefix"
  mkdir -p "$prefix"
  printf '{"private":true}\n' >"$prefix/package.json"
  if ! (cd "$prefix" && npm install --no-save --omit=dev --ignore-scripts "$package@$version") >>"$log" 2>&1; then
    reason="$(grep -E '^npm (error|ERR!)' "$log" | sed -E 's/^npm (error|ERR!) *//' | grep -vE '^(code [A-Z0-9]+)? *$|^A complete log' | head -n1 || true)"
    rm -rf -- "$prefix"
    die "npm could not install $package@$version: ${reason:-see the log}; log: $log"
  fi
  installed || die "npm installed $package@$version into $prefix but no native binary for this platform ($(uname -sm)); log: $log"
fi

native_binary
