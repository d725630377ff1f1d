#!/usr/bin/env bash
# The packages as a user gets them (run by .ci/run; `npm run test:consumer`). Fails on the first
# broken step:
#   1. each workspace package (rxkube, @rxkube/controller-manager, @rxkube/codegen,
#      @rxkube/testkit, create-rxkube) is packed (`prepack` builds its dist/); each tarball holds every path its
#      exports and bin name, source maps resolve, LICENSE is Apache-2.0, peers are peers
#      (test/consumer/check-package.mjs);
#   2. a production install of rxkube + rxjs alone brings none of the test kit's or the code
#      generator's dependencies, and `import('rxkube')` works;
#   3. a fresh project (test/consumer/, copied to a temp dir) installs rxkube with rxjs 7.8.1 (the
#      oldest peer it allows), the three tools as devDependencies, and, from the npm registry,
#      typescript, vitest, rxjs-marbles and @types/node at the repo's versions; nothing gets a
#      second rxjs or rxkube;
#   4. the CLIs run from the packed packages: rxkube-apiserver, rxkube-controller-manager and
#      `rxkube generate-types` (which writes widget.generated.ts);
#   5. `tsc --strict --skipLibCheck false` type-checks the project, which uses the runtime's
#      entries, the test kit and the generated types (a type error fails the script); its small
#      operator (mirror-controller.ts, pods-table.ts, operator-main.ts, mirror-controller.test.ts:
#      written from the README alone) has no cast, no `!` and no `any` (check-no-casts.mjs);
#   6. its controller, then its operator (the ConfigMap mirror and the live pods-per-node table of
#      `state$`), run against the embedded API server (@rxkube/testkit) on Node 24;
#   7. its marble test and its outcome tests (`virtualTime` + `eventually`, two tests building the
#      same controller) pass under vitest;
#   8. on a Node older than 22.19 (if the machine has one: /usr/bin/node and the like), importing
#      each entry fails with rxkube's own message naming both versions.
# Set RXKUBE_CONSUMER_KEEP=1 to keep the temp dir.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
start=$SECONDS

# The consumer's Node: the repo's pinned node@24 (a devDependency), first on PATH, so npm, tsc,
# vitest and the controller run on it even where the machine's own node is older.
node24="${RXKUBE_CONSUMER_NODE:-$root/node_modules/node/bin/node}"
[ -x "$node24" ] || { echo "consumer-test: $node24 not found (npm ci first)" >&2; exit 1; }
export PATH="$(dirname "$node24"):$PATH"
echo "consumer-test: Node $(node -v), npm $(npm -v)"

work="$(mktemp -d "${TMPDIR:-/tmp}/rxkube-consumer.XXXXXX")"
cleanup() { if [ "${RXKUBE_CONSUMER_KEEP:-}" = 1 ]; then echo "consumer-test: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

step() { echo "== consumer: $* ($((SECONDS - start)) s)"; }

# Every package of the workspace, packed as npm publish would: the runtime first (the others
# build against its declarations), then the controller manager (the test kit depends on it).
declare -A tarballs
for dir in . packages/controller-manager packages/codegen packages/testkit packages/create-rxkube; do
  name="$(node -p 'require(process.argv[1]).name' "$root/$dir/package.json")"
  step "npm pack $name ($dir)"
  (cd "$root/$dir" && npm pack --dry-run --json --loglevel=error) >"$work/dry-run.json"
  tarball="$(cd "$root/$dir" && npm pack --pack-destination "$work" --loglevel=error | tail -n 1)"
  tarball="$work/$tarball"
  [ -f "$tarball" ] || { echo "consumer-test: npm pack made no tarball for $name" >&2; exit 1; }
  if [ -e "$root/$dir/.package.json.orig" ]; then echo "consumer-test: postpack did not restore $dir/package.json" >&2; exit 1; fi
  rm -rf "$work/unpacked"; mkdir -p "$work/unpacked"
  tar -xzf "$tarball" -C "$work/unpacked"
  node "$root/test/consumer/check-package.mjs" "$work/dry-run.json" "$work/unpacked/package"
  tarballs[$name]="$tarball"
done

step "production install of rxkube alone: no server, no codegen"
lean="$work/lean"
mkdir -p "$lean"
echo '{ "name": "lean", "private": true, "type": "module" }' >"$lean/package.json"
(cd "$lean" && npm install --omit=dev --no-audit --no-fund --loglevel=error "${tarballs[rxkube]}" rxjs@7.8.1)
for heavy in protobufjs selfsigned json-schema-to-typescript prettier; do
  if [ -e "$lean/node_modules/$heavy" ]; then echo "consumer-test: a production install of rxkube brings $heavy" >&2; exit 1; fi
done
echo "rxkube + rxjs: $(find "$lean/node_modules" -name package.json -path '*/node_modules/*/package.json' -not -path '*/node_modules/*/node_modules/*/*/*' | wc -l) package.json files, $(du -sm "$lean/node_modules" | cut -f1) MB"
(cd "$lean" && node --input-type=module -e "const r = await import('rxkube'); if (typeof r.KubeClient !== 'function') process.exit(1); console.log('import(\'rxkube\'): ' + Object.keys(r).length + ' values')")

step "install the tarballs into a fresh project"
app="$work/app"
mkdir -p "$app"
cp "$root"/test/consumer/package.json "$root"/test/consumer/tsconfig.json "$root"/test/consumer/*.ts "$root"/test/consumer/*.yaml "$root"/test/consumer/check-no-casts.mjs "$app/"
node -e '
const fs = require("fs");
const [repoPkg, appPkg, runtime, testkit, controllerManager, codegen] = process.argv.slice(1);
const dev = JSON.parse(fs.readFileSync(repoPkg, "utf8")).devDependencies;
const app = JSON.parse(fs.readFileSync(appPkg, "utf8"));
app.dependencies = { rxkube: `file:${runtime}`, rxjs: "7.8.1" };
app.devDependencies = {
  "@rxkube/testkit": `file:${testkit}`, "@rxkube/controller-manager": `file:${controllerManager}`, "@rxkube/codegen": `file:${codegen}`,
  ...Object.fromEntries(["typescript", "vitest", "rxjs-marbles", "@types/node"].map((n) => [n, dev[n]])),
};
fs.writeFileSync(appPkg, JSON.stringify(app, null, 2) + "\n");
' "$root/package.json" "$app/package.json" "${tarballs[rxkube]}" "${tarballs[@rxkube/testkit]}" "${tarballs[@rxkube/controller-manager]}" "${tarballs[@rxkube/codegen]}"
(cd "$app" && npm install --no-audit --no-fund --loglevel=error)
if [ -e "$app/node_modules/rxkube/node_modules/rxjs" ]; then
  echo "consumer-test: rxkube installed its own rxjs ($(node -p 'require(process.argv[1]).version' "$app/node_modules/rxkube/node_modules/rxjs/package.json")) beside the consumer's 7.8.1" >&2
  exit 1
fi
for nested in "$app"/node_modules/@rxkube/*/node_modules/rxkube; do
  if [ -e "$nested" ]; then echo "consumer-test: $nested: a package installed a second rxkube" >&2; exit 1; fi
done

step "the CLIs from the packed packages"
(cd "$app" && timeout 60 npx --no-install rxkube-apiserver --help >/dev/null)
(cd "$app" && timeout 60 npx --no-install rxkube-controller-manager --help >/dev/null)
(cd "$app" && timeout 60 npx --no-install rxkube generate-types widget-crd.yaml --import-from rxkube --out widget.generated.ts)
grep -q 'export interface Widget' "$app/widget.generated.ts" || { echo "consumer-test: rxkube generate-types wrote no Widget type" >&2; exit 1; }

step "tsc --strict --skipLibCheck false"
(cd "$app" && node node_modules/typescript/bin/tsc -p tsconfig.json --strict --skipLibCheck false --listFiles >"$work/tsc-files.txt") || {
  grep -v '^/' "$work/tsc-files.txt" >&2 || true
  exit 1
}
if grep -q '/node_modules/@kubernetes/client-node/' "$work/tsc-files.txt"; then
  echo "consumer-test: rxkube's declarations pull in @kubernetes/client-node's:" >&2
  grep '/node_modules/@kubernetes/client-node/' "$work/tsc-files.txt" | head -n 5 >&2
  exit 1
fi
echo "type-checked $(grep -c '' "$work/tsc-files.txt") files"
operator_files=(mirror-controller.ts pods-table.ts operator-main.ts mirror-controller.test.ts)
(cd "$app" && node check-no-casts.mjs "${operator_files[@]}")

step "run the controller against the embedded API server"
(cd "$app" && timeout 120 node out/main.js)

step "run the operator (ConfigMap mirror, live pods-per-node table) against the embedded API server"
(cd "$app" && timeout 120 node out/operator-main.js)

step "marble and outcome tests under vitest"
(cd "$app" && timeout 120 node node_modules/vitest/vitest.mjs run --exclude 'out/**' --reporter=dot)

step "import on a Node older than 22.19"
old=""
for candidate in $(which -a node 2>/dev/null) /usr/local/bin/node /usr/bin/node; do
  [ -x "$candidate" ] || continue
  if "$candidate" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a < 22 || (a === 22 && b < 19) ? 0 : 1)' 2>/dev/null; then
    old="$candidate"
    break
  fi
done
if [ -z "$old" ]; then
  echo "no Node older than 22.19 on this machine: skipped"
else
  for entry in rxkube rxkube/operators rxkube/testing @rxkube/testkit; do
    if out="$(cd "$app" && "$old" --input-type=module -e "await import('$entry')" 2>&1)"; then
      echo "consumer-test: import('$entry') succeeded on Node $("$old" -v)" >&2
      exit 1
    fi
    if ! grep -q "rxkube requires Node.js >= 22.19.0; this is Node.js $("$old" -v)" <<<"$out"; then
      echo "consumer-test: import('$entry') on Node $("$old" -v) failed without rxkube's message:" >&2
      echo "$out" | head -n 12 >&2
      exit 1
    fi
  done
  echo "$old ($("$old" -v)), each entry: $(grep -m 1 '^Error: rxkube requires' <<<"$out")"
fi

step "passed"
