/**
 * Property: for any interleaving of informer events and reconcile durations (virtual time), a
 * controller never runs two reconciles of one key at once, and every key's last reconcile starts
 * after its last event and sees the latest cached state.
 */
import fc from 'fast-check';
import { map, Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { controller } from '../../src/controller/controller.js';
import { added, deleted, fakeSource, updated } from '../../src/testing/controller-harness.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
let runs = 0;

const step = fc.record({
  at: fc.integer({ min: 0, max: 50 }),
  key: fc.integer({ min: 0, max: 3 }),
  op: fc.constantFrom('upsert', 'delete'),
});

describe('controller property', () => {
  it('never reconciles one key concurrently; the last reconcile of each key follows its last event and sees the latest state', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 3 }),
        (steps, durations, concurrency) => {
          const ts = new TestScheduler(() => undefined);
          ts.run(() => {
            const live = new Subject<InformerEvent>();
            const src = fakeSource({ resource: CM, events$: live });
            const state = new Map<string, KubeObject>();
            const lastEventAt = new Map<string, number>();
            let rv = 0;
            for (const s of [...steps].sort((a, b) => a.at - b.at)) {
              ts.schedule(() => {
                const name = `k${s.key}`;
                const old = state.get(name);
                if (s.op === 'delete') {
                  if (old === undefined) return;
                  state.delete(name);
                  live.next(deleted(old));
                } else {
                  const next: KubeObject = { metadata: { namespace: 'ns', name, resourceVersion: String(++rv) } };
                  state.set(name, next);
                  live.next(old === undefined ? added(next) : updated(old, next));
                }
                lastEventAt.set(name, ts.now());
              }, s.at);
            }
            const running = new Set<string>();
            const violations: string[] = [];
            const last = new Map<string, { start: number; rv: string | undefined }>();
            let call = 0;
            const c = controller({
              name: `prop-${++runs}`,
              for: src,
              concurrency,
              scheduler: ts,
              reconcile: (req, ctx) => {
                if (running.has(req.name)) violations.push(`${req.name} concurrent at ${ts.now()}`);
                running.add(req.name);
                last.set(req.name, { start: ts.now(), rv: ctx.object?.metadata?.resourceVersion });
                const d = durations[call++ % durations.length] as number;
                return timer(d, ts).pipe(map(() => void running.delete(req.name)));
              },
            });
            c.run().subscribe();
            ts.flush();
            expect(violations).toEqual([]);
            for (const [name, at] of lastEventAt) {
              const l = last.get(name);
              expect(l, name).toBeDefined();
              expect(l?.start, name).toBeGreaterThanOrEqual(at);
              expect(l?.rv, name).toBe(state.get(name)?.metadata?.resourceVersion);
            }
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
