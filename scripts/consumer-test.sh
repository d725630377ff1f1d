#!/usr/bin/env bash
# The package as a user gets it (run by .ci/run; `npm run test:consumer`). Fails on the first
# broken step:
#   1. `npm pack --dry-run --json` (prepack builds dist/) lists dist/ and LICENSE;
#   2. `npm pack`; the tarball holds every path its exports and bin name, source maps resolve,
#      LICENSE is Apache-2.0, rxjs and prom-client are peers (test/consumer/check-package.mjs);
#   3. a fresh project (test/consumer/, copied to a temp dir) installs the tarball with rxjs 7.8.1
#      (the oldest peer it allows) and, from the npm registry, typescript, vitest, rxjs-marbles and
#      @types/node at the repo's versions; rxkube gets no copy of rxjs of its own;
#   4. `tsc --strict --skipLibCheck false` type-checks the project, which uses all three entries;
#   5. its controller runs against the embedded API server (rxkube/testing) on Node 24;
#   6. its marble test passes under vitest;
#   7. on a Node older than 22.19 (if the machine has one: /usr/bin/node and the like), importing
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

step "npm pack --dry-run --json"
(cd "$root" && npm pack --dry-run --json --loglevel=error) >"$work/dry-run.json"

step "npm pack"
tarball="$(cd "$root" && npm pack --pack-destination "$work" --loglevel=error | tail -n 1)"
tarball="$work/$tarball"
[ -f "$tarball" ] || { echo "consumer-test: npm pack made no tarball" >&2; exit 1; }
if [ -e "$root/.package.json.orig" ]; then echo "consumer-test: postpack did not restore package.json" >&2; exit 1; fi
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
node "$root/test/consumer/check-package.mjs" "$work/dry-run.json" "$work/unpacked/package"

step "install the tarball into a fresh project"
app="$work/app"
mkdir -p "$app"
cp "$root"/test/consumer/package.json "$root"/test/consumer/tsconfig.json "$root"/test/consumer/*.ts "$app/"
node -e '
const fs = require("fs");
const [repoPkg, appPkg, tarball] = process.argv.slice(1);
const dev = JSON.parse(fs.readFileSync(repoPkg, "utf8")).devDependencies;
const app = JSON.parse(fs.readFileSync(appPkg, "utf8"));
app.dependencies = { rxkube: `file:${tarball}`, rxjs: "7.8.1" };
app.devDependencies = Object.fromEntries(["typescript", "vitest", "rxjs-marbles", "@types/node"].map((n) => [n, dev[n]]));
fs.writeFileSync(appPkg, JSON.stringify(app, null, 2) + "\n");
' "$root/package.json" "$app/package.json" "$tarball"
(cd "$app" && npm install --no-audit --no-fund --loglevel=error)
if [ -e "$app/node_modules/rxkube/node_modules/rxjs" ]; then
  echo "consumer-test: rxkube installed its own rxjs ($(node -p 'require(process.argv[1]).version' "$app/node_modules/rxkube/node_modules/rxjs/package.json")) beside the consumer's 7.8.1" >&2
  exit 1
fi

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

step "run the controller against the embedded API server"
(cd "$app" && timeout 120 node out/main.js)

step "marble test under vitest"
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
  for entry in rxkube rxkube/operators rxkube/testing; do
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
