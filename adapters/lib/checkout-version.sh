# shellcheck shell=bash
# checkout_version PKGDIR: the version a toolnexus checkout's Go port declares, for hello's
# "version" (a directory replacement otherwise reports Go's "(devel)"). Sourced by
# golang/setup.sh; tests/suite/checkout_version.rs runs it on made-up repositories.
#
#   1. the nearest `golang/vX.Y.Z` tag, then `vX.Y.Z`, of PKGDIR's git history (`git describe`,
#      so a commit past a tag reads `0.16.0-3-gabc1234`, and an edited tree ends in `-dirty`);
#      a shallow clone has no tags: check out with full history;
#   2. else the version its Java port declares in lockstep (PKGDIR/../java/build.gradle);
#   3. else nothing: the adapter then says "(devel)".
checkout_version() {
  local pkgdir="$1" described="" pattern
  if command -v git >/dev/null 2>&1 && git -C "$pkgdir" rev-parse --git-dir >/dev/null 2>&1; then
    for pattern in 'golang/v[0-9]*' 'v[0-9]*'; do
      described="$(git -C "$pkgdir" describe --tags --match "$pattern" --dirty 2>/dev/null || true)"
      described="${described#golang/}"
      described="${described#v}"
      [ -z "$described" ] || break
    done
  fi
  if [ -z "$described" ] && [ -f "$pkgdir/../java/build.gradle" ]; then
    described="$(sed -n "s/^[[:space:]]*version[[:space:]]*=[[:space:]]*['\"]\\([^'\"]*\\)['\"].*/\\1/p" "$pkgdir/../java/build.gradle" | head -n1)"
  fi
  printf '%s' "$described"
}
