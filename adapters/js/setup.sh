#!/usr/bin/env bash
# Set up the JavaScript adapter: an installed or built toolnexus package for adapter.mjs.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  an npm release of toolnexus → .cache/npm-VERSION/, installed from a copy of
#            ./package.json with its toolnexus dependency set to VERSION. The lock: that
#            package.json's `overrides` pin the libraries that decide verdicts (`yaml`) to exact
#            versions, and when ./package-lock.json exists and pins toolnexus VERSION, it is
#            copied too and `npm ci` installs exactly what it lists. (It is not committed yet: npm
#            cannot lock a package its registry does not serve; once toolnexus is on npm,
#            `npm install --package-lock-only` in this folder writes it.)
#   PATH     a local checkout of the toolnexus repository (its root or its js/ folder)
#            → the js package is copied (without node_modules/ and dist/) to
#              .cache/local-<hash of the path>/, then `npm ci` (the checkout's own
#              package-lock.json is its lock; `npm install` when there is none) and
#              `npm run build` run there. The checkout itself is never written to. A rebuild
#              happens only when package.json, package-lock.json, tsconfig.json or src/ changed.
#
# The last line on stdout is the toolnexus package folder; start the adapter with
#   node adapters/js/adapter.mjs "$(setup.sh 0.20.0 | tail -n1)"
# Idempotent: a folder that already holds the wanted build is reused without running npm.
# On failure: exit 1 with one line on stderr naming the cause (the runner reports the port
# `unavailable` with it); the tool output behind it is kept in .cache/setup-*.log.
#
# Environment: npm_config_cache (default .cache/npm).
set -euo pipefail
PORT=js
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"

command -v node >/dev/null 2>&1 || die "node not found (hint: install Node.js >= 20)"
command -v npm >/dev/null 2>&1 || die "npm not found (hint: install npm, it ships with Node.js)"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' \
  || die "node is $(node --version); the adapter needs Node.js >= 20"

mkdir -p "$cache" || die "cannot create $cache"
export npm_config_cache="${npm_config_cache:-$cache/npm}"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false npm_config_loglevel=error

# The first "npm error" line that says something: not the bare code, not an empty "404", not
# the pointer to npm's debug log (npm spreads one 404 over several lines).
npm_reason() {
  grep -E '^npm (error|ERR!)' "$1" | sed -E 's/^npm (error|ERR!) *//' \
    | grep -vE '^(code [A-Z0-9]+|[0-9]{3})? *$|^A complete log|^[0-9]{3} +Note that|^[0-9]{3} +tarball' | head -n1 || true
}

if [ "$mode" = version ]; then
  # --- a registry release
  prefix="$cache/npm-$version"
  pkg="$prefix/node_modules/toolnexus"
  log="$cache/setup-npm-$version.log"
  installed() { [ "$(node -e 'try{console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).version)}catch{}' "$pkg/package.json")" = "$version" ]; }
  if ! installed; then
    : >"$log"
    mkdir -p "$prefix"
    progress "installing toolnexus $version (npm)"
    node -e 'const fs=require("fs"); const p=JSON.parse(fs.readFileSync(process.argv[1],"utf8"));
      p.dependencies.toolnexus=process.argv[2]; fs.writeFileSync(process.argv[3], JSON.stringify(p,null,2)+"\n")' \
      "$here/package.json" "$version" "$prefix/package.json" || die "cannot write $prefix/package.json"
    install=(npm install --omit=dev)
    if [ -f "$here/package-lock.json" ] && node -e 'const l=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
      process.exit(((l.packages||{})["node_modules/toolnexus"]||{}).version===process.argv[2]?0:1)' "$here/package-lock.json" "$version"; then
      cp -- "$here/package-lock.json" "$prefix/package-lock.json"
      install=(npm ci --omit=dev)
    fi
    if ! (cd "$prefix" && "${install[@]}") >>"$log" 2>&1; then
      reason="$(npm_reason "$log")"
      rm -rf -- "$prefix"
      hint=""
      grep -q 'E404' "$log" && hint=" (hint: the registry has no toolnexus@$version; pass a local checkout instead: setup.sh PATH)"
      die "npm could not install toolnexus@$version: ${reason:-see the log}$hint; log: $log"
    fi
    installed || die "npm installed into $prefix but $pkg/package.json does not say $version; log: $log"
  fi
else
  # --- a local checkout
  if [ -f "$checkout/js/package.json" ]; then
    srcdir="$checkout/js"
  elif [ -f "$checkout/package.json" ]; then
    srcdir="$checkout"
  else
    die "no package.json in $checkout/js or $checkout: not a toolnexus checkout"
  fi
  name="$(node -e 'try{console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).name)}catch{}' "$srcdir/package.json")"
  [ "$name" = toolnexus ] || die "$srcdir/package.json names package '${name:-?}', not toolnexus"
  key="$(local_key "$srcdir")"
  pkg="$cache/$key"
  log="$cache/setup-$key.log"
  # Fingerprint of everything the build reads.
  fingerprint="$(cd "$srcdir" && find package.json package-lock.json tsconfig.json src -type f 2>/dev/null | LC_ALL=C sort | xargs -d '\n' sha256sum | sha256sum | cut -c1-64)"
  if ! { [ -f "$pkg/.skill-conform-built" ] && [ "$(cat "$pkg/.skill-conform-built")" = "$fingerprint" ] && [ -f "$pkg/dist/index.js" ]; }; then
    : >"$log"
    progress "building toolnexus from $srcdir (npm ci + npm run build)"
    rm -rf -- "$pkg"
    mkdir -p "$pkg"
    trap 'rm -rf -- "$pkg"' EXIT
    # Copy the package, leaving out whatever a previous build in the checkout left behind.
    (cd "$srcdir" && tar -cf - --exclude=./node_modules --exclude=./dist .) | (cd "$pkg" && tar -xf -) \
      || die "cannot copy $srcdir to $pkg"
    if [ -f "$pkg/package-lock.json" ]; then
      (cd "$pkg" && npm ci) >>"$log" 2>&1 \
        || die "npm ci failed in the copy of $srcdir ($(npm_reason "$log")); log: $log"
    else
      (cd "$pkg" && npm install) >>"$log" 2>&1 \
        || die "npm install failed in the copy of $srcdir ($(npm_reason "$log")); log: $log"
    fi
    (cd "$pkg" && npm run build) >>"$log" 2>&1 \
      || die "npm run build failed for the copy of $srcdir ($(grep -m1 -E 'error' "$log" || true)); log: $log"
    [ -f "$pkg/dist/index.js" ] || die "the build of $srcdir produced no dist/index.js; log: $log"
    printf '%s\n' "$fingerprint" >"$pkg/.skill-conform-built"
    trap - EXIT
  fi
fi

printf '%s\n' "$pkg"
