/**
 * A program for `escaped-errors.test.ts`: a manager runs a controller whose reconcile lets an
 * error escape asynchronously (`timer`: thrown in a timer; `rejection`: an unhandled rejection)
 * and a bystander runnable. Prints one JSON line per log line and per event on stdout.
 */
import type { KubeObject } from '../../src/api/kube-object.js';
import { controller } from '../../src/controller/controller.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { manager } from '../../src/manager/manager.js';
import { fakeSource } from '../../src/testing/controller-harness.js';

const mode = process.argv[2];
const print = (line: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
const plain = (fields: LogFields): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Error ? v.message : v]));
function logger(base: LogFields): Logger {
  const at = (level: string) => (message: string, fields: LogFields = {}) => print({ level, message, ...plain({ ...base, ...fields }) });
  return { debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error'), child: (f) => logger({ ...base, ...f }) };
}

const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'a', resourceVersion: '1' } };
const mgr = manager({ logger: logger({}), processMetrics: false, gracefulShutdownTimeoutMs: 5_000 });
mgr.add({
  name: 'bystander',
  needLeaderElection: false,
  start: (signal) =>
    new Promise<void>((resolve) =>
      signal.addEventListener('abort', () => {
        print({ event: 'bystander stopped' });
        resolve();
      }),
    ),
});
mgr.add(
  controller({
    name: 'escaping',
    for: fakeSource({ resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }, initial: [cm] }),
    reconcile: () => {
      if (mode === 'timer') {
        setTimeout(() => {
          throw new Error('boom in a timer');
        }, 10);
      } else {
        void (async () => {
          await new Promise((r) => setTimeout(r, 10));
          throw new Error('boom in a rejection');
        })();
      }
    },
  }),
);
try {
  await mgr.start();
  print({ event: 'start resolved' });
} catch (err) {
  const e = err as { code?: string; controller?: string; key?: string; origin?: string; message?: string };
  print({ event: 'start rejected', code: e.code, controller: e.controller, key: e.key, origin: e.origin, message: e.message });
}
