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

declare -A tarballs
for dir in . packages/controller-manager packages/codegen packages/testkit packages/create-rxkube; do
  name="$(node -p 'require(process.argv[1]).name' "$root/$dir/package.json")"
  step "npm pack $name"
  tarball="$(cd "$root/$dir" && npm pack --pack-destination "$work" --loglevel=error | tail -n 1)"
  [ -f "$work/$tarball" ] || { echo "scaffold-from-tarballs: npm pack made no tarball for $name" >&2; exit 1; }
  tarballs[$name]="$work/$tarball"
done

step "scaffold with the packed create-rxkube"
# As `npm create rxkube` installs it: create-rxkube and its dependency rxkube (from its tarball).
mkdir -p "$work/tool"
echo '{ "name": "tool", "private": true }' >"$work/tool/package.json"
(cd "$work/tool" && npm install --no-audit --no-fund --loglevel=error "${tarballs[create-rxkube]}" "${tarballs[rxkube]}")
scaffold="$work/tool/node_modules/create-rxkube/bin/create-rxkube.js"
(cd "$work" && node "$scaffold" my-operator --group example.com --kind Widget --versions v1 --yes)
app="$work/my-operator"
(cd "$app" && node "$scaffold" api --kind Gadget)

step "install: rxkube's packages from the tarballs, the rest from the registry"
node -e '
const fs = require("fs");
const [file, runtime, testkit, codegen, controllerManager] = process.argv.slice(1);
const app = JSON.parse(fs.readFileSync(file, "utf8"));
app.dependencies.rxkube = `file:${runtime}`;
app.devDependencies["@rxkube/testkit"] = `file:${testkit}`;
app.devDependencies["@rxkube/codegen"] = `file:${codegen}`;
// The test kit depends on the controller manager at the same version: take it from its tarball too.
app.overrides = { "@rxkube/controller-manager": `file:${controllerManager}`, rxkube: `file:${runtime}` };
fs.writeFileSync(file, JSON.stringify(app, null, 2) + "\n");
' "$app/package.json" "${tarballs[rxkube]}" "${tarballs[@rxkube/testkit]}" "${tarballs[@rxkube/codegen]}" "${tarballs[@rxkube/controller-manager]}"
(cd "$app" && npm install --no-audit --no-fund --loglevel=error)

step "npm test"
(cd "$app" && timeout 300 npm test --silent)
step "npm run build"
(cd "$app" && npm run build --silent)
step "npm run manifests, then --check"
(cd "$app" && npm run manifests --silent && npm run manifests --silent -- --check)
step "passed"
