#!/usr/bin/env bash
# Resolve the Clojure adapter's classpath against the toolnexus Clojure port, once.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  a Clojars release of net.clojars.muthuishere/toolnexus → -Sdeps {:deps {net.clojars.muthuishere/toolnexus {:mvn/version "VERSION"}}}
#   PATH     a local checkout of the toolnexus repository (its root or its clojure/ folder)
#            → -Sdeps {:deps {net.clojars.muthuishere/toolnexus {:local/root "<checkout>/clojure"}}}
#
# Needs java and the Clojure CLI (`clojure` with deps.edn support, i.e. tools.deps). It runs
# `clojure -Spath` in .cache/clj-<tag>/ (a copy of deps.edn; jars go to .cache/m2), writes the
# classpath (with this folder's src/ made absolute) to .cache/clj-<tag>/classpath, and for a
# checkout also its version (from clojure/build.clj) to .cache/clj-<tag>/version.
# The last line on stdout is that folder; start the adapter with
#   bash adapters/clojure/run.sh "$(setup.sh | tail -n1)"
# which runs plain `java -cp … clojure.main -m adapter`, offline and from any directory.
# On failure: exit 1 with one line on stderr naming the cause; the output behind it is kept in
# .cache/setup-*.log.
set -euo pipefail
PORT=clojure
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
command -v java >/dev/null 2>&1 || die "java not found (hint: install a JDK, 17 or newer)"
command -v clojure >/dev/null 2>&1 \
  || die "clojure not found (hint: install the Clojure CLI with deps.edn support; Debian's clojure package lacks it; toolnexus's dependency net.clojars.muthuishere/koine is served by Clojars only, not Maven Central; one run on a hand-built class path over a 0.16.0 checkout is recorded in adapters/clojure/README.md)"
timeout 120 clojure -Sdescribe </dev/null >/dev/null 2>&1 \
  || die "$(command -v clojure) does not understand -Sdescribe: it is not the Clojure CLI with deps.edn support (Debian's clojure package is a plain launcher)"

version_file=""
if [ "$mode" = version ]; then
  tag="$version"
  coord="{:mvn/version \"$version\"}"
  what="net.clojars.muthuishere/toolnexus $version from Clojars"
else
  if [ -f "$checkout/clojure/deps.edn" ]; then
    pkg="$checkout/clojure"
  elif [ -f "$checkout/deps.edn" ]; then
    pkg="$checkout"
  else
    die "no deps.edn in $checkout/clojure or $checkout: not a toolnexus checkout"
  fi
  [ -f "$pkg/src/toolnexus/skill.cljc" ] || [ -f "$pkg/src/toolnexus/skill.clj" ] \
    || die "$pkg has no src/toolnexus/skill.clj(c): not the toolnexus Clojure port"
  tag="$(local_key "$pkg")"
  coord="{:local/root \"$pkg\"}"
  what="the checkout's $pkg"
  version_file="$(sed -n 's/^(def version *"\([^"]*\)".*/\1/p' "$pkg/build.clj" 2>/dev/null | head -n1 || true)"
fi

work="$cache/clj-$tag"
log="$cache/setup-$tag.log"
mkdir -p "$work" || die "cannot create $work"
: >"$log"
cp "$here/deps.edn" "$work/deps.edn"
export CLJ_CONFIG="${CLJ_CONFIG:-$cache/clj-config}"
sdeps="{:mvn/local-repo \"$cache/m2\" :deps {net.clojars.muthuishere/toolnexus $coord}}"

progress "installing $what (clojure -Spath)"
if ! cp_raw="$(cd "$work" && clojure -Sdeps "$sdeps" -Spath </dev/null 2>>"$log")"; then
  if grep -qiE 'UnknownHost|Connect|timed out|Could not transfer|clojars' "$log"; then
    die "Clojars is not reachable from this machine, so $what cannot be resolved (toolnexus and its dependency koine are served by Clojars only); log: $log"
  fi
  die "clojure -Spath failed for $what ($(grep -vE '^\s*$' "$log" | tail -n1 | head -c 200)); log: $log"
fi

# Make the relative entries (this adapter's "src") absolute.
cp_abs="$(printf '%s' "$cp_raw" | tr ':' '\n' | while IFS= read -r e || [ -n "$e" ]; do
  case "$e" in
    "") ;;
    /*) printf '%s\n' "$e" ;;
    src) printf '%s\n' "$here/src" ;;
    *) printf '%s\n' "$work/$e" ;;
  esac
done | paste -sd: -)"
printf '%s\n' "$cp_abs" >"$work/classpath"
if [ -n "$version_file" ]; then printf '%s\n' "$version_file" >"$work/version"; else rm -f "$work/version"; fi

printf '%s\n' "$work"
