#!/usr/bin/env bash
# Set up the skills-ref-rs adapter (profile agentskills): a venv with PyPI `skills-ref-rs` VERSION (Rust, PyO3).
#
#   setup.sh VERSION     (conventions: ../lib/setup-common.sh; body: ../lib/setup-agentskills-venv.sh)
#
# The wheel bundles its own YAML parser; constraints.txt pins nothing else today.
set -euo pipefail
PORT=skills-ref-rs
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
DISTS="skills-ref-rs" MODULE=skills_ref_rs MIN_PYTHON=3.11
. "$here/../lib/setup-agentskills-venv.sh"
