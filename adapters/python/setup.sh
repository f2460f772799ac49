#!/usr/bin/env bash
# Set up the Python adapter's interpreter: a venv with the toolnexus port installed.
#
#   setup.sh VERSION|PATH     (the conventions: ../lib/setup-common.sh)
#
#   VERSION  a PyPI release of toolnexus → venv at .cache/venv-VERSION
#   PATH     a local checkout of the toolnexus repository (or of its python/ folder)
#            → venv at .cache/venv-local-<hash of the package folder>, `pip install -e` of
#              PATH/python if that folder has a pyproject.toml, else of PATH itself
#
# Both install with `-c constraints.txt`: every third-party distribution toolnexus pulls in
# (PyYAML first, the one that decides verdicts) is pinned there, so a new PyYAML release cannot
# change a verdict silently. How to regenerate it: its first lines.
#
# The last line on stdout is the venv's python; start the adapter with
#   "$(setup.sh 0.21.0 | tail -n1)" adapters/python/adapter.py
# Idempotent and cached: a venv that already imports the wanted toolnexus is reused without
# running pip. On failure: exit 1 with one line on stderr naming the cause (the runner reports
# the port `unavailable` with it); the tool output behind it is kept in .cache/setup-*.log.
#
# Environment: PYTHON (interpreter to build the venv from; default: the first of python3,
# python3.13, python3.12, python3.11 that is ≥ 3.11), PIP_CACHE_DIR (default .cache/pip).
set -euo pipefail
PORT=python
self="${BASH_SOURCE[0]}" && [[ "$self" == */* ]] || self="./$self"
. "${self%/*}/../lib/setup-common.sh"
setup_args "$@"
constraints="$here/constraints.txt"

# Fastest path, starting no interpreter: a venv this script completed earlier for exactly this
# version (the distribution's RECORD is written last by pip). The runner calls set-up on every
# run, so this is what it usually pays.
# The venv keeps a copy of the constraints it was installed with; another copy means pip again.
if [ "$mode" = version ] && [ -x "$cache/venv-$version/bin/python" ] \
  && cmp -s "$constraints" "$cache/venv-$version/constraints.txt" \
  && compgen -G "$cache/venv-$version/lib/python3*/site-packages/toolnexus-$version.dist-info/RECORD" >/dev/null; then
  printf '%s\n' "$cache/venv-$version/bin/python"
  exit 0
fi

mkdir -p "$cache" || die "cannot create $cache"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$cache/pip}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1

# --- the base interpreter: ≥ 3.11, as toolnexus requires; `base` is the interpreter itself
# (`sys.executable`), not a wrapper such as a pyenv shim: `pyenv exec` rehashes its shims after
# every `python -m pip`, which fails where the shims are not writable (under the runner's
# containment), so the pinned pip below fell back to ensurepip, 2.5 s more on every set-up.
# One start per candidate, a shim's start costing ~0.15 s.
min_check='import sys; sys.exit(1) if sys.version_info < (3, 11) else print(sys.executable)'
base=""
if [ -n "${PYTHON:-}" ]; then
  command -v "$PYTHON" >/dev/null 2>&1 || die "PYTHON=$PYTHON not found"
  base="$("$PYTHON" -c "$min_check" 2>/dev/null)" \
    || die "PYTHON=$PYTHON is $("$PYTHON" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo '?'); toolnexus needs Python >= 3.11"
else
  found=""
  for cand in python3 python3.13 python3.12 python3.11; do
    if command -v "$cand" >/dev/null 2>&1; then
      found="${found:-$cand}"
      if base="$("$cand" -c "$min_check" 2>/dev/null)"; then break; fi
      base=""
    fi
  done
  [ -n "$found" ] || die "no python3 on PATH; toolnexus needs Python >= 3.11"
  [ -n "$base" ] \
    || die "$found is $("$found" -c 'import platform; print(platform.python_version())' 2>/dev/null || echo '?') and no python3.11+ was found; toolnexus needs Python >= 3.11"
fi
[ -x "$base" ] || die "the interpreter reports no usable sys.executable ($base)"

# --- what to install, and where.
if [ "$mode" = version ]; then
  venv="$cache/venv-$version"
  spec="toolnexus==$version"
else
  if [ -f "$checkout/python/pyproject.toml" ]; then
    pkgdir="$checkout/python"
  elif [ -f "$checkout/pyproject.toml" ] || [ -f "$checkout/setup.py" ]; then
    pkgdir="$checkout"
  else
    die "no pyproject.toml in $checkout/python or $checkout: not a toolnexus checkout"
  fi
  venv="$cache/venv-$(local_key "$pkgdir")"
fi
vpy="$venv/bin/python"
log="$cache/setup-$(basename "$venv").log"

# pinned_pip: the venv's pip at the version constraints.txt pins. The venv is made without pip
# (ensurepip takes ~5 s) and the base interpreter's pip puts the pinned one in (`--python`,
# pip >= 22.3); without a usable base pip, ensurepip and then the pin. The pin is a newer pip
# than most interpreters bundle: pip 23's resolver spends ~5 s testing the tags of every wheel
# the index lists for cryptography and pydantic-core, pip 26 a fraction of that.
pinned_pip() {
  local want have
  want="$(sed -n 's/^pip==//p' "$constraints")"
  have="$("$vpy" -m pip --version 2>/dev/null | cut -d' ' -f2 || true)"
  [ -n "$want" ] || die "constraints.txt pins no pip ($constraints)"
  [ "$have" = "$want" ] && return 0
  progress "installing pip $want into the venv"
  if ! "$base" -m pip --python "$vpy" install -c "$constraints" pip >>"$log" 2>&1; then
    { "$vpy" -m ensurepip >>"$log" 2>&1 \
      && "$vpy" -m pip install -c "$constraints" pip >>"$log" 2>&1; } \
      || die "cannot install pip $want into $venv ($(grep -E '^ERROR' "$log" | tail -n1 || true)); log: $log"
  fi
}

# Is the venv already right? (fast path: no pip)
ready() {
  [ -x "$vpy" ] && cmp -s "$constraints" "$venv/constraints.txt" || return 1
  if [ "$mode" = version ]; then
    # The installed distribution's version, and a findable package (not imported: that
    # takes ~0.6 s; an import failure still surfaces at the adapter's hello).
    [ "$("$vpy" -c 'import importlib.metadata as m, importlib.util as u; assert u.find_spec("toolnexus"); print(m.version("toolnexus"))' 2>/dev/null)" = "$version" ]
  else
    # An editable install of this checkout: toolnexus must resolve to a file inside it.
    "$vpy" - "$pkgdir" 2>/dev/null <<'EOF'
import importlib.util, os, sys
spec = importlib.util.find_spec("toolnexus")
pkg = os.path.realpath(os.path.dirname(spec.origin))
sys.exit(0 if pkg.startswith(os.path.realpath(sys.argv[1]) + os.sep) else 1)
EOF
  fi
}

if ! ready; then
  : >"$log"
  fresh=""
  # A venv whose interpreter cannot run (half-created, or its base Python is gone) is rebuilt.
  if ! { [ -x "$vpy" ] && "$vpy" -c 'import sys' >/dev/null 2>&1; }; then
    rm -rf -- "$venv"
    "$base" -m venv --without-pip "$venv" >>"$log" 2>&1 \
      || { rm -rf -- "$venv"; die "cannot create a venv with $base ($(tail -n1 "$log")); log: $log"; }
    fresh=1
  fi
  # Do not leave behind a venv this run created for a package that never installed.
  trap '[ -n "$fresh" ] && rm -rf -- "$venv"' EXIT
  pinned_pip
  if [ "$mode" = version ]; then
    progress "installing toolnexus $version (pip)"
    "$vpy" -m pip install -c "$constraints" "$spec" >>"$log" 2>&1 \
      || die "pip could not install $spec ($(grep -E '^ERROR' "$log" | tail -n1 || true)); log: $log"
  else
    progress "installing toolnexus from $pkgdir (pip -e)"
    "$vpy" -m pip install -c "$constraints" -e "$pkgdir" >>"$log" 2>&1 \
      || die "pip could not install -e $pkgdir ($(grep -E '^ERROR' "$log" | tail -n1 || true)); log: $log"
  fi
  cp -- "$constraints" "$venv/constraints.txt"
  ready || die "toolnexus installed into $venv but does not import as expected; log: $log"
  trap - EXIT
fi

printf '%s\n' "$vpy"
