#!/usr/bin/env bash
# `npm create rxkube` as a user gets it (slow: packs every package, installs from the registry;
# modelled on scripts/consumer-test.sh):
#   1. each workspace package (rxkube, @rxkube/controller-manager, @rxkube/codegen, @rxkube/testkit,
#      create-rxkube) is packed (`prepack` builds its dist/);
#   2. the packed create-rxkube scaffolds my-operator (Widget, example.com, v1) and adds a Gadget
#      with `create-rxkube api`;
#   3. the project's rxkube packages point at the tarballs; `npm install` brings the rest (typescript,
#      vitest, tsx, js-yaml, @types/node) from the registry;
#   4. its `npm test` (which generates the types first), `npm run build`, `npm run manifests` and
#      `npm run manifests -- --check` pass.
# Set CREATE_RXKUBE_KEEP=1 to keep the temp dir.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
start=$SECONDS
node24="${RXKUBE_CONSUMER_NODE:-$root/node_modules/node/bin/node}"
[ -x "$node24" ] || { echo "scaffold-from-tarballs: $node24 not found (npm ci first)" >&2; exit 1; }
export PATH="$(dirname "$node24"):$PATH"
work="$(mktemp -d "${TMPDIR:-/tmp}/create-rxkube-tarballs.XXXXXX")"
cleanup() { if [ "${CREATE_RXKUBE_KEEP:-}" = 1 ]; then echo "scaffold-from-tarballs: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
step() { echo "== create-rxkube: $* ($((SECONDS - start)) s)"; }

step "npm pack the workspace packages"
bash "$root/packages/create-rxkube/scripts/pack-workspace.sh" "$work"
tarball() { node -p 'require(process.argv[1])[process.argv[2]]' "$work/tarballs.json" "$1"; }

step "scaffold with the packed create-rxkube"
# As `npm create rxkube` installs it: create-rxkube and its dependency rxkube (from its tarball).
mkdir -p "$work/tool"
echo '{ "name": "tool", "private": true }' >"$work/tool/package.json"
(cd "$work/tool" && npm install --no-audit --no-fund --loglevel=error "$(tarball create-rxkube)" "$(tarball rxkube)")
scaffold="$work/tool/node_modules/create-rxkube/bin/create-rxkube.js"
(cd "$work" && node "$scaffold" my-operator --group example.com --kind Widget --versions v1 --yes)
app="$work/my-operator"
(cd "$app" && node "$scaffold" api --kind Gadget)

step "install: rxkube's packages from the tarballs, the rest from the registry"
node "$root/packages/create-rxkube/scripts/point-at-tarballs.mjs" "$app/package.json" "$work/tarballs.json"
(cd "$app" && npm install --no-audit --no-fund --loglevel=error)

step "npm test"
(cd "$app" && timeout 300 npm test --silent)
step "npm run build"
(cd "$app" && npm run build --silent)
step "npm run manifests, then --check"
(cd "$app" && npm run manifests --silent && npm run manifests --silent -- --check)
step "passed"
