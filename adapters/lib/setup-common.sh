# shellcheck shell=bash
# The preamble every adapters/<port>/setup.sh sources: usage, the one argument, `die`, the cache
# layout and the progress convention. Kept short so that each setup.sh still reads on its own.
#
# Every setup.sh is called by the runner as `setup.sh {version}` (adapters/ports.toml), so:
#
#   setup.sh VERSION|PATH   exactly one argument, required. There is no default version: the pin
#                           lives in adapters/ports.toml only (a test checks the manifests agree).
#     VERSION  a release of the port's published package (`0.21.0`; a leading `v` is dropped)
#     PATH     a local checkout of the toolnexus repository (its root or the port's folder)
#
#   stdout   the last line is what replaces `{setup}` in the port's `run` command
#   stderr   one line per slow step, `installing toolnexus 0.21.0 (pip)` (`progress`); on failure
#            the last line is `setup.sh (PORT): <cause>` and the exit status is 1 (`die`)
#
# Cache layout, all under adapters/<port>/.cache/ (git-ignored): one folder or file per install,
# keyed by the version (`0.21.0`) or, for a checkout, `local-<12 hex of sha256 of its path>`
# (`local_key`); the tool output of a set-up goes to `setup-<key>.log` beside it.
#
# Usage, at the top of a setup.sh (with `set -euo pipefail`):
#
#   PORT=python
#   self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
#   . "${self%/*}/../lib/setup-common.sh"    # no `dirname`: set-up runs on every run
#   setup_args "$@"     # sets mode=version + version, or mode=local + checkout
#
# Defines: here (the adapter folder), cache (its .cache), die, progress, local_key, setup_args.

# The caller's folder, without starting `dirname` (the runner calls set-up on every run).
caller="${BASH_SOURCE[1]}"
[[ "$caller" == */* ]] || caller="./$caller"
here="$(cd "${caller%/*}" && pwd)"
cache="$here/.cache"

# die MSG: the one-line cause on stderr, exit 1. The runner shows it as the port's reason.
die() { printf 'setup.sh (%s): %s\n' "${PORT:?PORT is not set}" "$*" >&2; exit 1; }

# progress MSG: one line on stderr before a slow step, e.g. `installing toolnexus 0.21.0 (pip)`.
progress() { printf '%s\n' "$*" >&2; }

# local_key DIR: the cache key of a checkout folder, `local-` and 12 hex digits of its path's sha256.
local_key() { printf 'local-%s' "$(printf '%s' "$1" | sha256sum | cut -c1-12)"; }

# setup_args "$@": checks for exactly one argument and classifies it.
#   a version → mode=version, version (without a leading `v`)
#   a folder  → mode=local, checkout (absolute, symlinks resolved)
setup_args() {
  [ "$#" -eq 1 ] && [ -n "$1" ] \
    || die "usage: setup.sh VERSION|PATH (got $# arguments; the pinned version is in adapters/ports.toml)"
  if [[ "$1" =~ ^v?[0-9][0-9A-Za-z.+!-]*$ ]]; then
    mode=version
    version="${1#v}"
  else
    [ -d "$1" ] || die "not a version and not a directory: $1"
    mode=local
    checkout="$(cd "$1" && pwd -P)"
  fi
}
