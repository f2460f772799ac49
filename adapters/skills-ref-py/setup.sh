#!/usr/bin/env bash
# Set up the skills-ref-py adapter (profile agentskills): a venv with PyPI `skills-ref` VERSION.
#
#   setup.sh VERSION     (conventions: ../lib/setup-common.sh; body: ../lib/setup-agentskills-venv.sh)
#
# Third-party pins (strictyaml first: it decides verdicts) are in constraints.txt.
set -euo pipefail
PORT=skills-ref-py
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
DISTS="skills-ref" MODULE=skills_ref MIN_PYTHON=3.11
. "$here/../lib/setup-agentskills-venv.sh"
