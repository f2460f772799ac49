#!/usr/bin/env bash
# Set up the skill-tools adapter (profile agentskills): npm `@skill-tools/core` VERSION, locked by
# package-lock.json, in .cache/npm-VERSION.
#
#   setup.sh VERSION     (conventions: ../lib/setup-common.sh; body: ../lib/setup-agentskills-npm.sh)
set -euo pipefail
PORT=skill-tools
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
PACKAGE="@skill-tools/core"
. "$here/../lib/setup-agentskills-npm.sh"
