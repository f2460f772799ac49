#!/usr/bin/env bash
# Start the Elixir adapter with file-descriptor-level protection of the reply stream:
# fd 3 becomes the reply stream (the original stdout) and fd 1 is pointed at stderr, so
# nothing the VM, a NIF, Logger or a child process prints can reach the replies.
#
#   run.sh SPEC        SPEC = what setup.sh printed (a toolnexus version or a package path)
#
# The caches default to adapters/elixir/.cache (MIX_HOME, HEX_HOME, MIX_INSTALL_DIR) unless
# the caller set them; Mix.install then finds the installation setup.sh built, offline.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The fd swap is done when stdout is a pipe (as under the runner). On a regular file or a tty a
# re-opened /dev/fd/3 would not share the caller's file offset, so there the adapter keeps
# fd 1 and relies on its in-VM protection (group leader and logger on stderr).
if [ -p /dev/stdout ]; then
  exec 3>&1 1>&2
  exec elixir "$here/adapter.exs" --reply-fd 3 "$@"
fi
exec elixir "$here/adapter.exs" "$@"
