#!/usr/bin/env bash
# Build the versioned case bundle (layout: docs/bundle.md) from this repository.
#
#   scripts/bundle.sh [OUTDIR]     (default OUTDIR: target/bundle; `just bundle` runs it)
#
# Writes OUTDIR/skill-conform-cases-VERSION/ and OUTDIR/skill-conform-cases-VERSION.tar.gz, where
# VERSION is the workspace version in Cargo.toml. The tarball is reproducible: sorted names, fixed
# mtime and owner, gzip without a timestamp. On a missing input: one line on stderr, exit 1.
# REPO (default: this script's repository) is where the inputs are read from.
set -euo pipefail
export LC_ALL=C

repo="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
out="${1:-$repo/target/bundle}"
die() { printf 'bundle.sh: %s\n' "$*" >&2; exit 1; }

version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' "$repo/Cargo.toml")"
[ -n "$version" ] || die "no version under [workspace.package] in $repo/Cargo.toml"
for input in crates/skill-ref/CONTRACT.md goldens/TABLE.md goldens/VERSION adapters/PROTOCOL.md \
  conformance-fixtures/README.md docs/bundle.md; do
  [ -f "$repo/$input" ] || die "missing $input in $repo (every bundle carries it)"
done

name="skill-conform-cases-$version"
dest="$out/$name"
rm -rf -- "$dest" "$dest.tar.gz"
mkdir -p "$dest/cases" "$dest/goldens"
cp -- "$repo/docs/bundle.md" "$dest/README.md"
cp -- "$repo/crates/skill-ref/CONTRACT.md" "$dest/CONTRACT.md"
cp -- "$repo/goldens/TABLE.md" "$dest/TABLE.md"
cp -- "$repo/adapters/PROTOCOL.md" "$dest/PROTOCOL.md"
cp -- "$repo/conformance-fixtures/README.md" "$dest/FIXTURES.md"
{ printf 'skill-conform %s\n' "$version"; cat "$repo/goldens/VERSION"; } >"$dest/VERSION"

# The cases and their goldens, and index.json listing them in code-point order. Each tree is
# copied by one `cp` and the pinned cases found by one `grep`, not a few processes per case.
mapfile -t ids < <(cd "$repo/conformance-fixtures" && find . -mindepth 3 -maxdepth 3 -name case.toml \
  | sed -e 's#^\./##' -e 's#/case\.toml$##' | sort)
for id in "${ids[@]}"; do
  [ -f "$repo/goldens/$id.json" ] || die "case $id has no golden goldens/$id.json (run: skill-conform goldens --write)"
done
declare -A pinned=()
while IFS= read -r toml; do pinned["${toml%/case.toml}"]=1; done < <(
  cd "$repo/conformance-fixtures" && printf '%s/case.toml\0' "${ids[@]}" \
    | xargs -0 grep -lE '^pinned *= *true' || true)
(cd "$repo/conformance-fixtures" && printf '%s\0' "${ids[@]}" | xargs -0 cp -R --parents -t "$dest/cases")
(cd "$repo/goldens" && printf '%s.json\0' "${ids[@]}" | xargs -0 cp --parents -t "$dest/goldens")
{
  printf '{\n  "format": 1,\n  "version": "%s",\n  "cases": [\n' "$version"
  sep=""
  for id in "${ids[@]}"; do
    is_pinned=false
    [ -n "${pinned[$id]:-}" ] && is_pinned=true
    printf '%s    {"id": "%s", "pinned": %s, "case": "cases/%s", "golden": "goldens/%s.json"}' \
      "$sep" "$id" "$is_pinned" "$id" "$id"
    sep=$',\n'
  done
  printf '\n  ]\n}\n'
} >"$dest/index.json"

(cd "$dest" && find . -type f ! -name SHA256SUMS | sort | sed 's#^\./##' | xargs -d '\n' sha256sum) >"$dest/SHA256SUMS"
tar -C "$out" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - "$name" \
  | gzip -n -9 >"$dest.tar.gz"
printf '%s\n' "$dest.tar.gz"
