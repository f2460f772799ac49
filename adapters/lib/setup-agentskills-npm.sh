# shellcheck shell=bash
# The set-up body shared by the Node.js adapters of the `agentskills` profile (skills-ref-js,
# skill-tools): `npm ci` of the adapter's package.json + package-lock.json (the package under test
# and everything it pulls in, locked) into .cache/npm-VERSION. Sourced after setup-common.sh and
# setup_args, with PACKAGE (the npm name). The lock pins PACKAGE at one version; another VERSION
# installs without the lock (`npm install`), and says so. Prints the prefix folder.

[ "$mode" = version ] || die "only a released version is supported (got a folder)"
command -v node >/dev/null 2>&1 || die "node not found (hint: install Node.js >= 20)"
command -v npm >/dev/null 2>&1 || die "npm not found (hint: install npm, it ships with Node.js)"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' \
  || die "node is $(node --version); the adapter needs Node.js >= 20"

prefix="$cache/npm-$version"
manifest="$prefix/node_modules/$PACKAGE/package.json"
installed() { [ "$(node -e 'try{console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).version)}catch{}' "$manifest")" = "$version" ]; }
if installed; then printf '%s\n' "$prefix"; exit 0; fi

mkdir -p "$prefix" || die "cannot create $prefix"
export npm_config_cache="${npm_config_cache:-$cache/npm}"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false npm_config_loglevel=error
log="$cache/setup-npm-$version.log"
: >"$log"
node -e 'const fs=require("fs"); const p=JSON.parse(fs.readFileSync(process.argv[1],"utf8"));
  p.dependencies[process.argv[2]]=process.argv[3]; fs.writeFileSync(process.argv[4], JSON.stringify(p,null,2)+"\n")' \
  "$here/package.json" "$PACKAGE" "$version" "$prefix/package.json" || die "cannot write $prefix/package.json"
install=(npm install --omit=dev)
if node -e 'const l=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
  process.exit(((l.packages||{})["node_modules/"+process.argv[2]]||{}).version===process.argv[3]?0:1)' \
  "$here/package-lock.json" "$PACKAGE" "$version" 2>/dev/null; then
  cp -- "$here/package-lock.json" "$prefix/package-lock.json"
  install=(npm ci --omit=dev)
else
  progress "no lock for $PACKAGE@$version: installing unlocked"
fi
progress "installing $PACKAGE $version (npm)"
(cd "$prefix" && "${install[@]}") >>"$log" 2>&1 || {
  rm -rf -- "$prefix"
  die "npm could not install $PACKAGE@$version ($(grep -E '^npm (error|ERR!)' "$log" | head -n1 || true)); log: $log"
}
installed || die "npm installed into $prefix but $manifest does not say $version; log: $log"
printf '%s\n' "$prefix"
