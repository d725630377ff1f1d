#!/usr/bin/env bash
# The generated project, against this checkout's sources (fast; no pack, no registry):
#   1. `create-rxkube my-operator --group shop.example.com --kind CertificateRequest --versions v1,v2beta1`,
#      then `create-rxkube api --kind Policy` inside it;
#   2. its types from crds/ (`rxkube generate-types`, as its `npm run generate`);
#   3. tsc type-checks it (strict, noUncheckedIndexedAccess), rxkube resolved to its sources;
#   4. its tests pass under vitest (the virtual-time test per kind, the manager over HTTP);
#   5. `npm run manifests` writes deploy/rbac.yaml, and `--check` then agrees;
#   6. `npm run dev` (src/main.ts --embedded) reconciles both samples to Ready and stops on SIGINT.
# The project's node_modules is a link to this checkout's (rxkube and @rxkube/* are workspace links),
# so the packages resolve through their `source` export condition. Set CREATE_RXKUBE_KEEP=1 to keep it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
export PATH="$root/node_modules/node/bin:$PATH"
work="$(mktemp -d "${TMPDIR:-/tmp}/create-rxkube-check.XXXXXX")"
cleanup() { if [ "${CREATE_RXKUBE_KEEP:-}" = 1 ]; then echo "check-generated: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
step() { echo "== check-generated: $*"; }

step "scaffold"
(cd "$work" && node "$root/packages/create-rxkube/bin/create-rxkube.js" my-operator --group shop.example.com --kind CertificateRequest --versions v1,v2beta1 --yes >/dev/null)
app="$work/my-operator"
(cd "$app" && node "$root/packages/create-rxkube/bin/create-rxkube.js" api --kind Policy >/dev/null)
ln -s "$root/node_modules" "$app/node_modules"
# Source resolution for this check only (a real project resolves the published builds).
echo '{ "extends": "./tsconfig.json", "compilerOptions": { "customConditions": ["source"], "noEmit": true } }' >"$app/tsconfig.check.json"
cat >"$app/vitest.check.config.ts" <<'CONFIG'
import { mergeConfig } from 'vitest/config';
import project from './vitest.config.js';
export default mergeConfig(project, {
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: { env: { RXKUBE_LOG: 'off' } },
});
CONFIG

step "generate types"
(cd "$app" && node node_modules/.bin/rxkube generate-types crds/*.yaml --import-from rxkube --out src/api.generated.ts)

step "tsc"
(cd "$app" && node node_modules/typescript/bin/tsc -p tsconfig.check.json)

step "vitest"
(cd "$app" && timeout 300 node node_modules/vitest/vitest.mjs run --root . --config vitest.check.config.ts --reporter=dot)

step "manifests"
(cd "$app" && node node_modules/.bin/tsx --conditions=source src/manifests.ts >/dev/null && node node_modules/.bin/tsx --conditions=source src/manifests.ts --check)
grep -q 'certificaterequests/status, policies/status' "$app/deploy/rbac.yaml" || { echo "check-generated: deploy/rbac.yaml lacks the status rules of both kinds" >&2; exit 1; }

step "npm run dev: both samples Ready, then SIGINT"
(cd "$app" && RXKUBE_LOG=info HEALTH_PORT=0 METRICS_PORT=0 exec node node_modules/.bin/tsx --conditions=source src/main.ts --embedded >"$work/dev.log" 2>&1) &
dev=$!
for _ in $(seq 1 120); do
  if grep -q 'CertificateRequest is Ready' "$work/dev.log" && grep -q 'Policy is Ready' "$work/dev.log"; then break; fi
  kill -0 "$dev" 2>/dev/null || break
  sleep 0.5
done
kill -INT "$dev" 2>/dev/null || true
status=0
wait "$dev" || status=$?
if ! grep -q 'CertificateRequest is Ready' "$work/dev.log" || ! grep -q 'Policy is Ready' "$work/dev.log" || ! grep -q 'manager stopped' "$work/dev.log"; then
  echo "check-generated: npm run dev did not reconcile both samples and stop (exit $status):" >&2
  tail -n 20 "$work/dev.log" >&2
  exit 1
fi

step "passed"
