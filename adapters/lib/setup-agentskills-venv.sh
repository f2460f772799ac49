# shellcheck shell=bash
# The set-up body shared by the Python adapters of the `agentskills` profile (skills-ref-py,
# skills-ref-rs, agentskills-fs): a venv at .cache/venv-VERSION with the pinned distributions
# installed under the adapter's constraints.txt. Sourced after setup-common.sh and setup_args, with
#
#   DISTS        the distributions to install at $version (space-separated)
#   MODULE       the module the adapter imports (checked after the install)
#   MIN_PYTHON   the lowest Python the distributions accept, as `3.11`
#
# Interpreter: $PYTHON (only it, when set), else the first of python3, python3.13, python3.12 (and pyenv's installed
# versions) that is >= MIN_PYTHON; none → `die` with the versions found. Local checkouts are not
# supported (these are third-party libraries, not toolnexus). Prints the venv's python.

[ "$mode" = version ] || die "only a released version is supported (got a folder)"
venv="$cache/venv-$version"
vpy="$venv/bin/python"
constraints="$here/constraints.txt"
min_check="import sys; sys.exit(0 if sys.version_info >= tuple(map(int, '$MIN_PYTHON'.split('.'))) else 1)"

ready() {
  [ -x "$vpy" ] && cmp -s "$constraints" "$venv/constraints.txt" \
    && "$vpy" -c "import importlib.util as u, sys; sys.exit(0 if u.find_spec('$MODULE') else 1)" 2>/dev/null
}

if ready; then printf '%s\n' "$vpy"; exit 0; fi

base=""
tried=""
if [ -n "${PYTHON:-}" ]; then
  candidates=("$PYTHON")
else
  candidates=(python3 python3.13 python3.12)
  for dir in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/bin; do candidates+=("$dir/python3"); done
fi
for cand in "${candidates[@]}"; do
  [ -n "$cand" ] && command -v "$cand" >/dev/null 2>&1 || continue
  ver="$("$cand" -c 'import platform; print(platform.python_version())' 2>/dev/null)" || continue
  tried="$tried $ver"
  if "$cand" -c "$min_check" 2>/dev/null; then base="$cand"; break; fi
done
[ -n "$base" ] || die "needs Python >= $MIN_PYTHON; found only:${tried:- none} (set PYTHON=...)"

mkdir -p "$cache" || die "cannot create $cache"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$cache/pip}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
log="$cache/setup-$version.log"
: >"$log"
rm -rf -- "$venv"
"$base" -m venv "$venv" >>"$log" 2>&1 || die "cannot create a venv with $base; log: $log"
trap 'rm -rf -- "$venv"' EXIT
specs=()
for dist in $DISTS; do specs+=("$dist==$version"); done
progress "installing ${specs[*]} (pip)"
"$vpy" -m pip install -c "$constraints" "${specs[@]}" >>"$log" 2>&1 \
  || die "pip could not install ${specs[*]} ($(grep -E '^ERROR' "$log" | tail -n1 || true)); log: $log"
cp -- "$constraints" "$venv/constraints.txt"
ready || die "${specs[*]} installed but $MODULE does not import; log: $log"
trap - EXIT
printf '%s\n' "$vpy"
