#!/usr/bin/env bash
# Set up the skills-ref-js adapter (profile agentskills): npm `skills-ref` VERSION, locked by
# package-lock.json, in .cache/npm-VERSION.
#
#   setup.sh VERSION     (conventions: ../lib/setup-common.sh; body: ../lib/setup-agentskills-npm.sh)
set -euo pipefail
PORT=skills-ref-js
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
PACKAGE="skills-ref"
. "$here/../lib/setup-agentskills-npm.sh"
