#!/usr/bin/env bash
# Build the Go adapter: a binary linked against the toolnexus Go module.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  a release of github.com/muthuishere/toolnexus/golang (tag golang/vVERSION; a
#            leading "v" is allowed) → .cache/bin-VERSION
#   PATH     a local checkout of the toolnexus repository (or of its golang/ folder)
#            → .cache/bin-local-<hash of the module folder>, built with a replace directive
#
# The last line on stdout is the binary; it is the adapter command. The committed go.mod is
# never modified: the module is copied to .cache/build-<key>/, re-pinned there with
# `go mod edit -require` (or `-replace` for a checkout), `go mod tidy` completes go.sum, and
# `go build` writes the binary. The lock is the committed go.sum (copied in, so every module
# toolnexus pulls in, gopkg.in/yaml.v3 first, must match its recorded hash) together with Go's
# minimal version selection, which never picks a version newer than some go.mod asks for.
# Idempotent and cached: a release binary that is newer than the adapter's sources is reused
# without running go at all (~10 ms); a checkout is rebuilt every time (go's build cache makes
# that about a second) so that edits are picked up.
# On failure: exit 1 with one line on stderr naming the cause (the runner reports the port
# `unavailable` with it); the tool output behind it is kept in .cache/setup-<key>.log.
#
# A checkout's version (hello's "version") is read from its git tags, `golang/vX.Y.Z` then
# `vX.Y.Z` (a shallow clone has none: check out with full history), else from the version its
# other ports declare in lockstep (java/build.gradle); never "(devel)" when either exists.
#
# Environment: GO (the go command; default: `go` on PATH, else /usr/local/go/bin/go),
# GOCACHE, GOMODCACHE, GOPATH (defaults .cache/go-build, .cache/gomod, .cache/gopath),
# GOTOOLCHAIN (default `local`; set it to `auto` to let go fetch the toolchain a newer
# go.mod asks for). GOPROXY and GOSUMDB are left as the environment sets them.
set -euo pipefail
PORT=golang
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
module="github.com/muthuishere/toolnexus/golang"

# --- the toolchain
go_cmd="${GO:-}"
if [ -z "$go_cmd" ]; then
  if command -v go >/dev/null 2>&1; then go_cmd=go
  elif [ -x /usr/local/go/bin/go ]; then go_cmd=/usr/local/go/bin/go
  else die "go not found on PATH (nor /usr/local/go/bin/go); the Go toolchain is needed to build the adapter"
  fi
fi
command -v "$go_cmd" >/dev/null 2>&1 || die "GO=$go_cmd not found"
"$go_cmd" version >/dev/null 2>&1 || die "$go_cmd does not run ($("$go_cmd" version 2>&1 | head -n1))"

mkdir -p "$cache" || die "cannot create $cache"
export GOCACHE="${GOCACHE:-$cache/go-build}"
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}"
export GOPATH="${GOPATH:-$cache/gopath}"
# -modcacherw: the module cache stays deletable; local toolchain only; no workspace, no VCS stamping.
export GOFLAGS="-modcacherw -buildvcs=false" GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOWORK=off GO111MODULE=on
export CGO_ENABLED=0

# --- what to build, and where
if [ "$mode" = version ]; then
  key="$version"
else
  pkgdir=""
  for cand in "$checkout/golang" "$checkout"; do
    if [ -f "$cand/go.mod" ] && grep -qE "^module[[:space:]]+$module[[:space:]]*$" "$cand/go.mod"; then
      pkgdir="$cand"; break
    fi
  done
  [ -n "$pkgdir" ] || die "no go.mod declaring module $module in $checkout/golang or $checkout: not a toolnexus checkout"
  key="$(local_key "$pkgdir")"
fi
bin="$cache/bin-$key"
build="$cache/build-$key"
log="$cache/setup-$key.log"
sources=("$here"/*.go "$here/go.mod" "$here/go.sum")

# Fast path for a release: the binary exists and no adapter source is newer than it.
if [ "$mode" = version ] && [ -x "$bin" ]; then
  fresh=1
  for f in "${sources[@]}" "$here/setup.sh"; do [ "$f" -nt "$bin" ] && fresh=""; done
  if [ -n "$fresh" ]; then printf '%s\n' "$bin"; exit 0; fi
fi

: >"$log"
mkdir -p "$build" || die "cannot create $build"
rm -f -- "$build"/*.go
cp -- "${sources[@]}" "$build/" || die "cannot copy the adapter sources to $build"

ldflags=""
cd "$build"
if [ "$mode" = version ]; then
  progress "installing toolnexus $version (go module proxy)"
  "$go_cmd" mod edit -require="$module@v$version" >>"$log" 2>&1 \
    || die "go mod edit -require=$module@v$version failed ($(tail -n1 "$log")); log: $log"
else
  # The version the checkout declares (its tags, else its Java port's lockstep version).
  . "$here/../lib/checkout-version.sh"
  described="$(checkout_version "$pkgdir")"
  progress "building toolnexus ${described:-(devel)} from $pkgdir (go build)"
  [ -z "$described" ] || ldflags="-X main.checkoutVersion=$described"
  "$go_cmd" mod edit -replace="$module=$pkgdir" -require="$module@v0.0.0-00010101000000-000000000000" >>"$log" 2>&1 \
    || die "go mod edit -replace=$module=$pkgdir failed ($(tail -n1 "$log")); log: $log"
fi

if ! "$go_cmd" mod tidy >>"$log" 2>&1; then
  reason="$(grep -m1 -E 'not available|403|404|410|unknown revision|invalid version|no matching versions|dial tcp|requires go' "$log" || tail -n1 "$log")"
  reason="$(printf '%s' "$reason" | sed -e 's/^[[:space:]]*//')"
  if [ "$mode" = version ]; then
    die "cannot fetch $module@v$version from the Go module proxy (${reason}); log: $log"
  else
    die "go mod tidy failed for the checkout $pkgdir (${reason}); log: $log"
  fi
fi

if ! "$go_cmd" build -ldflags="$ldflags" -o "$bin.tmp" . >>"$log" 2>&1; then
  rm -f -- "$bin.tmp"
  die "go build failed against $module ($([ "$mode" = version ] && echo "v$version" || echo "$pkgdir")): $(grep -m1 -E '\.go:[0-9]+' "$log" || tail -n1 "$log"); log: $log"
fi
mv -f -- "$bin.tmp" "$bin"

printf '%s\n' "$bin"
