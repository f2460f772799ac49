#!/usr/bin/env bash
# Set up the agentskills-fs adapter (profile agentskills): a venv with PyPI `agentskills-core` and
# `agentskills-fs` VERSION (both released together). They need Python >= 3.12: set-up looks for
# one (PYTHON, python3.13, python3.12, pyenv's versions) and otherwise fails with the versions it
# found, which makes the port `unavailable` with that reason.
#
#   setup.sh VERSION     (conventions: ../lib/setup-common.sh; body: ../lib/setup-agentskills-venv.sh)
#
# Third-party pins (PyYAML: it decides verdicts) are in constraints.txt.
set -euo pipefail
PORT=agentskills-fs
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
DISTS="agentskills-core agentskills-fs" MODULE=agentskills_fs MIN_PYTHON=3.12
. "$here/../lib/setup-agentskills-venv.sh"
