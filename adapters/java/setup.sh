#!/usr/bin/env bash
# Set up the Java adapter: resolve toolnexus from Maven Central, compile Adapter.java, and
# write a launcher script.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  a Maven Central release of io.github.muthuishere:toolnexus → .cache/run-VERSION.sh
#   PATH     a local checkout of the toolnexus repository (or of its java/ folder)
#            → .cache/run-local-<hash of the java folder>.sh. Gradle is NOT used (its wrapper
#              downloads Gradle itself, from a host outside the package registries): the
#              dependencies declared in build.gradle (`api`/`implementation 'g:a:v'`, exact
#              versions) are resolved with Maven, and src/main/java is compiled with javac.
#
# The lock: for a release, pom.xml's dependencyManagement pins the libraries that decide
# verdicts (SnakeYAML) to exact versions; for a checkout, build.gradle's exact versions are used.
#
# The last line on stdout is the launcher; it is the adapter command. It execs java (>= 21)
# with the adapter's classes and toolnexus's class path. Idempotent and cached: when the
# launcher, its classes and every class-path entry exist and nothing they were built from is
# newer, it returns without running Maven or javac. On failure: exit 1 with one line on stderr
# naming the cause (the runner reports the port `unavailable` with it); the tool output behind
# it is kept in .cache/setup-<key>.log.
#
# Environment: JAVA_HOME (used when it is Java >= 21; else the newest JDK >= 21 among javac
# on PATH and /usr/lib/jvm/*), MVN (default: mvn). Maven's local repository is .cache/m2, or
# MAVEN_REPO_LOCAL when set (CI points it at the folder its cache step saves).
set -euo pipefail
PORT=java
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
group="io.github.muthuishere"
artifact="toolnexus"
min_java=21
mkdir -p "$cache" || die "cannot create $cache"
m2="${MAVEN_REPO_LOCAL:-$cache/m2}"

# --- a JDK >= 21 (javac and java)
java_major() { # $1: a JDK home → its feature version, e.g. 25 (empty if unknown)
  local v=""
  if [ -f "$1/release" ]; then v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release")"; fi
  if [ -z "$v" ] && [ -x "$1/bin/java" ]; then
    v="$("$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n1)"
  fi
  v="${v#1.}"
  printf '%s' "${v%%[.+-]*}"
}
jdk=""
seen=""
candidates=()
[ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
if command -v javac >/dev/null 2>&1; then
  candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
fi
if [ -d /usr/lib/jvm ]; then
  while IFS= read -r d; do candidates+=("$d"); done < <(ls -d /usr/lib/jvm/*/ 2>/dev/null | sed 's#/$##' | sort -V -r)
fi
best=0
for c in "${candidates[@]}"; do
  [ -x "$c/bin/javac" ] && [ -x "$c/bin/java" ] || continue
  major="$(java_major "$c")"
  [[ "$major" =~ ^[0-9]+$ ]] || continue
  seen="${seen:+$seen, }$(basename "$c")=$major"
  if [ -n "${JAVA_HOME:-}" ] && [ "$c" = "$JAVA_HOME" ] && [ "$major" -ge "$min_java" ]; then jdk="$c"; break; fi
  if [ "$major" -ge "$min_java" ] && [ "$major" -gt "$best" ]; then jdk="$c"; best="$major"; fi
done
[ -n "$jdk" ] || die "no JDK >= $min_java found (JAVA_HOME, javac on PATH, /usr/lib/jvm/*: ${seen:-none}); toolnexus needs Java $min_java+"
jdk="$(cd "$jdk" && pwd -P)"

mvn_cmd="${MVN:-mvn}"
command -v "$mvn_cmd" >/dev/null 2>&1 || die "$mvn_cmd not found on PATH; Maven is needed to resolve toolnexus from Maven Central"

# --- what to build, and where
if [ "$mode" = version ]; then
  key="$version"
else
  pkgdir=""
  for cand in "$checkout/java" "$checkout"; do
    if [ -f "$cand/build.gradle" ] && [ -f "$cand/src/main/java/io/github/muthuishere/toolnexus/SkillSource.java" ]; then
      pkgdir="$cand"; break
    fi
  done
  [ -n "$pkgdir" ] || die "no build.gradle with src/main/java/io/github/muthuishere/toolnexus/SkillSource.java in $checkout/java or $checkout: not a toolnexus checkout"
  version="$(sed -n "s/^[[:space:]]*version[[:space:]]*=[[:space:]]*['\"]\\([^'\"]*\\)['\"].*/\\1/p" "$pkgdir/build.gradle" | head -n1)"
  [ -n "$version" ] || version="unknown"
  key="$(local_key "$pkgdir")"
fi
launcher="$cache/run-$key.sh"
classes="$cache/classes-$key"
cpfile="$cache/cp-$key.txt"
build="$cache/build-$key"
log="$cache/setup-$key.log"

# --- fast path: nothing to do
up_to_date() {
  [ -x "$launcher" ] && [ -f "$classes/Adapter.class" ] && [ -s "$cpfile" ] || return 1
  grep -qF -- "$jdk/bin/java" "$launcher" || return 1
  [ "$here/Adapter.java" -nt "$classes/Adapter.class" ] && return 1
  [ "$here/pom.xml" -nt "$cpfile" ] && return 1
  [ "$here/setup.sh" -nt "$launcher" ] && return 1
  local entry
  while IFS= read -r -d ':' entry; do [ -e "$entry" ] || return 1; done < <(printf '%s:' "$(cat "$cpfile")")
  if [ "$mode" = local ]; then
    [ -f "$build/lib.stamp" ] || return 1
    [ -n "$(find "$pkgdir/src/main" "$pkgdir/build.gradle" -newer "$build/lib.stamp" -print -quit 2>/dev/null)" ] && return 1
  fi
  return 0
}
if up_to_date; then printf '%s\n' "$launcher"; exit 0; fi

: >"$log"
mkdir -p "$build" || die "cannot create $build"

mvn_reason() { # the part of the log that says why resolution failed
  local r
  r="$(sed -e 's/\x1b\[[0-9;]*m//g' "$log" | grep -o -m1 -E '[^ ]+ was not found in [^ ]+|Could not (find|transfer) artifact [^ ]+( from/to [^ ]+)?( in [^ ]+)?|The following artifacts could not be resolved: .*|Unknown host [^ ]+|Non-resolvable [^:]*' || true)"
  [ -n "$r" ] || r="$(sed -e 's/\x1b\[[0-9;]*m//g' "$log" | grep -m1 -E '^\[ERROR\]' || tail -n1 "$log")"
  printf '%s' "$r" | sed -e 's/^\[ERROR\][[:space:]]*//' -e 's/[[:space:]]*->.*$//' | cut -c1-300
}

resolve() { # $1: pom → writes $cpfile
  "$mvn_cmd" -B -q -U -Dstyle.color=never -f "$1" -Dmaven.repo.local="$m2" -Dtoolnexus.version="$version" \
    dependency:build-classpath -Dmdep.outputFile="$cpfile.tmp" -Dmdep.includeScope=runtime >>"$log" 2>&1 \
    && [ -f "$cpfile.tmp" ] && mv -f -- "$cpfile.tmp" "$cpfile"
}

javac_opts=(--release "$min_java" -encoding UTF-8 -nowarn -Xlint:none)

if [ "$mode" = version ]; then
  progress "installing toolnexus $version (maven)"
  resolve "$here/pom.xml" \
    || die "cannot resolve $group:$artifact:$version from Maven Central ($(mvn_reason)); log: $log"
  libcp="$(cat "$cpfile")"
else
  progress "building toolnexus $version from $pkgdir (maven + javac)"
  # The checkout's own dependencies, as build.gradle declares them (api / implementation).
  mapfile -t deps < <(sed -n -E "s/^[[:space:]]*(api|implementation)[[:space:]]*\\(?[[:space:]]*['\"]([^'\":]+):([^'\":]+):([^'\":@]+)['\"].*/\\2 \\3 \\4/p" "$pkgdir/build.gradle")
  [ "${#deps[@]}" -gt 0 ] || die "found no \"api/implementation 'group:artifact:version'\" lines in $pkgdir/build.gradle (Gradle itself cannot be used here: its wrapper downloads Gradle from outside the package registries)"
  {
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
    printf '  <modelVersion>4.0.0</modelVersion>\n  <groupId>skill-conform</groupId>\n  <artifactId>toolnexus-local-deps</artifactId>\n  <version>1</version>\n  <packaging>pom</packaging>\n  <dependencies>\n'
    for d in "${deps[@]}"; do
      read -r g a v <<<"$d"
      printf '    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n' "$g" "$a" "$v"
    done
    printf '  </dependencies>\n  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.6.1</version></plugin></plugins></build>\n</project>\n'
  } >"$build/pom.xml"
  resolve "$build/pom.xml" \
    || die "cannot resolve the dependencies of $pkgdir/build.gradle from Maven Central ($(mvn_reason)); log: $log"
  # Compile the checkout's library classes.
  rm -rf -- "$build/lib" && mkdir -p "$build/lib"
  find "$pkgdir/src/main/java" -name '*.java' >"$build/sources.txt"
  "$jdk/bin/javac" "${javac_opts[@]}" -parameters -cp "$(cat "$cpfile")" -d "$build/lib" @"$build/sources.txt" >>"$log" 2>&1 \
    || die "javac failed on $pkgdir/src/main/java ($(grep -m1 -E '\.java:[0-9]+' "$log" || tail -n1 "$log")); log: $log"
  if [ -d "$pkgdir/src/main/resources" ]; then cp -R -- "$pkgdir/src/main/resources/." "$build/lib/"; fi
  touch "$build/lib.stamp"
  libcp="$build/lib:$(cat "$cpfile")"
fi

# --- compile the adapter
rm -rf -- "$classes.tmp" && mkdir -p "$classes.tmp"
"$jdk/bin/javac" "${javac_opts[@]}" -cp "$libcp" -d "$classes.tmp" "$here/Adapter.java" >>"$log" 2>&1 \
  || { rm -rf -- "$classes.tmp"; die "javac failed on Adapter.java against toolnexus $version ($(grep -m1 -E '\.java:[0-9]+' "$log" || tail -n1 "$log")); log: $log"; }
rm -rf -- "$classes" && mv -- "$classes.tmp" "$classes"

# --- the launcher
{
  printf '#!/usr/bin/env bash\n'
  printf '# Written by adapters/java/setup.sh for toolnexus %s (%s). Do not edit; re-run setup.sh.\n' "$version" "$mode"
  printf 'exec %q -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+DisplayVMOutputToStderr \\\n' "$jdk/bin/java"
  printf '  -Dfile.encoding=UTF-8 -Dstdout.encoding=UTF-8 -Dstderr.encoding=UTF-8 -Dtoolnexus.version=%q \\\n' "$version"
  printf '  -cp %q Adapter "$@"\n' "$classes:$libcp"
} >"$launcher.tmp"
chmod +x "$launcher.tmp"
mv -f -- "$launcher.tmp" "$launcher"

printf '%s\n' "$launcher"
