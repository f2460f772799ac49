#!/usr/bin/env bash
# Start the Clojure adapter on the classpath setup.sh resolved, with file-descriptor-level
# protection of the reply stream: fd 3 becomes the reply stream (the original stdout) and fd 1
# is pointed at stderr, so nothing the JVM, native code or a child process prints can reach
# the replies.
#
#   run.sh DIR        DIR = what setup.sh printed: a folder holding `classpath` (and, for a
#                     local checkout, `version`)
set -euo pipefail
dir="${1:?usage: run.sh DIR (the folder setup.sh printed)}"
[ -f "$dir/classpath" ] || { echo "run.sh (clojure): no classpath in $dir; run setup.sh first" >&2; exit 1; }
cp="$(cat "$dir/classpath")"
props=()
if [ -f "$dir/version" ]; then props+=("-Dskillconform.toolnexus.version=$(cat "$dir/version")"); fi
# The fd swap is done when stdout is a pipe (as under the runner). On a regular file or a tty a
# re-opened /dev/fd/3 would not share the caller's file offset, so there the adapter keeps
# fd 1 and relies on its in-JVM protection (System.out and *out* on stderr).
if [ -p /dev/stdout ]; then
  exec 3>&1 1>&2
  exec java "${props[@]}" -cp "$cp" clojure.main -m adapter --reply-fd 3
fi
exec java "${props[@]}" -cp "$cp" clojure.main -m adapter
