#!/usr/bin/env bash
# Packs the five workspace packages as npm publishes them (`prepack` builds each dist/) into DEST
# and writes DEST/tarballs.json ({ "rxkube": "DEST/rxkube-0.1.0.tgz", … }). Used by
# scaffold-from-tarballs.sh and test/e2e/scaffold-deploy.test.ts.
# Usage: pack-workspace.sh DEST
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
dest="$(cd "${1:?usage: pack-workspace.sh DEST}" && pwd)"
start=$SECONDS
json="{"
for dir in . packages/controller-manager packages/codegen packages/testkit packages/create-rxkube; do
  name="$(node -p 'require(process.argv[1]).name' "$root/$dir/package.json")"
  echo "== pack-workspace: npm pack $name ($((SECONDS - start)) s)"
  tarball="$(cd "$root/$dir" && npm pack --pack-destination "$dest" --loglevel=error | tail -n 1)"
  [ -f "$dest/$tarball" ] || { echo "pack-workspace: npm pack made no tarball for $name" >&2; exit 1; }
  [ "$json" = "{" ] || json="$json,"
  json="$json \"$name\": \"$dest/$tarball\""
done
echo "$json }" >"$dest/tarballs.json"
