import fc from 'fast-check';
import { defer, finalize, map, Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { ReconcileResult } from '../../src/workqueue/reconcile-result.js';

type Behaviour = { ms: number; outcome: 'ok' | 'error' | 'requeue' | 'after'; after: number };

const behaviour = fc.record({
  ms: fc.integer({ min: 0, max: 12 }),
  outcome: fc.constantFrom('ok', 'error', 'requeue', 'after') as fc.Arbitrary<Behaviour['outcome']>,
  after: fc.integer({ min: 1, max: 30 }),
});

const schedule = fc.record({
  concurrency: fc.integer({ min: 1, max: 4 }),
  adds: fc.array(fc.record({ at: fc.integer({ min: 0, max: 60 }), key: fc.constantFrom('a', 'b', 'c', 'd', 'e') }), {
    minLength: 1,
    maxLength: 60,
  }),
  behaviours: fc.array(behaviour, { minLength: 1, maxLength: 40 }),
});

describe('workQueue under random schedules (property)', () => {
  it('never reconciles one key twice at once, respects concurrency, and loses no add', () => {
    fc.assert(
      fc.property(schedule, ({ concurrency, adds, behaviours }) => {
        const log: { ev: 'add' | 'start'; key: string; at: number }[] = [];
        const active = new Map<string, number>();
        let activeTotal = 0;
        let maxTotal = 0;
        let overlap = false;
        let starts = 0;
        let requeues = 0;
        const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
        ts.run(() => {
          const input = new Subject<string>();
          const reconcile = (req: { name: string }) =>
            defer(() => {
              const key = req.name;
              const b = behaviours[starts++] ?? { ms: 1, outcome: 'ok', after: 0 };
              log.push({ ev: 'start', key, at: ts.now() });
              const n = (active.get(key) ?? 0) + 1;
              if (n > 1) overlap = true;
              active.set(key, n);
              activeTotal++;
              maxTotal = Math.max(maxTotal, activeTotal);
              return timer(b.ms).pipe(
                map((): ReconcileResult | undefined => {
                  if (b.outcome === 'error') throw new Error('fail');
                  if (b.outcome === 'requeue') return { requeue: true };
                  if (b.outcome === 'after') return { requeueAfter: b.after };
                  return undefined;
                }),
                finalize(() => {
                  active.set(key, active.get(key)! - 1);
                  activeTotal--;
                }),
              );
            });
          input.pipe(workQueue(reconcile, { concurrency })).subscribe((o) => {
            if (o.requeueAfter !== undefined) requeues++;
          });
          for (const { at, key } of adds) {
            ts.schedule(() => {
              log.push({ ev: 'add', key, at });
              input.next(key);
            }, at);
          }
          ts.flush();
        });
        expect(overlap).toBe(false);
        expect(maxTotal).toBeLessThanOrEqual(concurrency);
        // every add is followed (in event order) by a start of the same key
        log.forEach((e, i) => {
          if (e.ev === 'add') expect(log.slice(i + 1).some((s) => s.ev === 'start' && s.key === e.key)).toBe(true);
        });
        // no start without a reason: starts ≤ adds + requeues
        expect(starts).toBeLessThanOrEqual(adds.length + requeues);
        // dedup: keys added at the same instant while queued collapse, so starts of k ≤ adds of k + requeues
        expect(activeTotal).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('hands distinct keys out in first-in first-out order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }).filter((s) => !s.includes('/')), { minLength: 1, maxLength: 50 }), fc.integer({ min: 1, max: 5 }), (keys, concurrency) => {
        const started: string[] = [];
        const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
        ts.run(() => {
          const input = new Subject<string>();
          input
            .pipe(
              workQueue(
                (req) =>
                  defer(() => {
                    started.push(req.name);
                    return timer(3).pipe(map(() => undefined));
                  }),
                { concurrency },
              ),
            )
            .subscribe();
          for (const k of keys) input.next(k);
          ts.flush();
        });
        expect(started).toEqual(keys);
      }),
      { numRuns: 100 },
    );
  });
});
