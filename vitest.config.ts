import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Each unit test file runs isolated (vitest's default: a fresh module graph, and with the forks
// pool a fresh process, per file). `npm run test:fast` runs the tier without isolation instead
// (each worker imports the runtime and the test kit once: under 3 minutes against about 7 on a
// 2-core machine), at the price of shared process state: there, a real-time RxJS timer a file
// leaves running can be rescheduled while a later file's virtual time has replaced RxJS's timer
// providers, and its stray interval then fails in whatever file runs next (seen once as
// "executing a cancelled action" stopping an embedded cluster's controller manager). Until such
// leaks are found and closed, CI runs isolated.
//
// vitest's default is one worker per core minus one: a single worker on a 2-core machine, which
// then waits out every unit file's server round trips, child processes and real-time waits one
// after another. RXKUBE_TEST_WORKERS=3 overlaps those waits (on a quiet 2-core machine a 32-file
// subset took 62 s against 72 s); on a busy machine extra workers only stretch every test's
// wall-clock time towards its timeout, so the default stays vitest's.
const requested = Number(process.env['RXKUBE_TEST_WORKERS']);
const unitWorkers = Number.isInteger(requested) && requested > 0 ? requested : Math.max(1, availableParallelism() - 1);

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  // The embedded API server's data files (kube-openapi.json 0.9 MB, kube-proto.json 0.2 MB) are
  // loaded by nearly every test file: as one `JSON.parse` string (1 MB) they are read from the
  // module cache, shipped to the worker and evaluated faster than as named-export object literals
  // with a source map (3.9 MB for kube-openapi.json). Every JSON import in the repo is a default import.
  json: { stringify: true, namedExports: false },
  test: {
    setupFiles: ['test/helpers/fast-check-seed.ts', 'test/helpers/timer-audit.ts'],
    // Managers log at info by default; tests that look at logs pass their own logger.
    env: { RXKUBE_LOG: 'off' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/consumer/**', 'test/browser/**', 'node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          maxWorkers: unitWorkers,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // Real-browser tests: headless Chromium (RXKUBE_CHROMIUM or on the PATH) via puppeteer-core.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
