/**
 * Superseding reconciles: a newer add of a key being reconciled aborts it (signal reason
 * ReconcileAbortedError('superseded')), reports `superseded`, and runs the key again once it
 * settled, never two at once per key; off by default.
 */
import { defer, finalize, map, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ReconcileAbortedError } from '../../src/workqueue/reconcile-aborted-error.js';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { Reconciler } from '../../src/workqueue/reconciler.js';
import { controller } from '../../src/controller/controller.js';
import { fakeSource, updated } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const label = (o: ReconcileOutcome): string => (o.kind === 'superseded' ? 'S' : o.kind === 'success' ? o.key.toUpperCase() : `${o.key}:${o.kind}`);

describe('workQueue supersede', () => {
  it(
    'matches the marble diagram in its doc comment (an Observable reconcile is unsubscribed at once)',
    marbles((m) => {
      const running: string[] = [];
      const reconcile: Reconciler = () =>
        defer(() => {
          running.push(`start@${m.scheduler.now()}`);
          return timer(6).pipe(map(() => undefined), finalize(() => running.push(`end@${m.scheduler.now()}`)));
        });
      const out = m.cold('-a--a---------').pipe(workQueue(reconcile, { scheduler: m.scheduler, supersede: true }), map(label));
      m.expect(out).toBeObservable('----S-----A---');
      m.scheduler.schedule(() => expect(running).toEqual(['start@1', 'end@4', 'start@4', 'end@10']), 11);
    }),
  );

  it(
    'off by default: the add waits, and the running reconcile finishes',
    marbles((m) => {
      const reconcile: Reconciler = () => timer(6).pipe(map(() => undefined));
      const out = m.cold('-a--a---------').pipe(workQueue(reconcile, { scheduler: m.scheduler }), map(label));
      m.expect(out).toBeObservable('-------A-----A');
    }),
  );

  it(
    'a delayed add (after > 0) does not supersede; other keys are untouched',
    marbles((m) => {
      const reconcile: Reconciler = () => timer(6).pipe(map(() => undefined));
      const input = m.cold('-a-bx', { a: 'a', b: 'b', x: { request: 'a', after: 20 } });
      const out = input.pipe(workQueue(reconcile, { scheduler: m.scheduler, supersede: true, concurrency: 2 }), map(label));
      m.expect(out, '^ 40ms !').toBeObservable('-------A-B 20ms A') // due at 24, runs 6;
    }),
  );

  it('a Promise reconcile sees its signal aborted, keeps the key until it settles, and is reported superseded whatever it returned; no backoff counted', async () => {
    const reasons: unknown[] = [];
    const active = new Set<string>();
    let overlaps = 0;
    let calls = 0;
    const reconcile: Reconciler = async (req, signal) => {
      if (active.has(req.name)) overlaps++;
      active.add(req.name);
      calls++;
      try {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, calls === 1 ? 1_000 : 5);
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason);
            // Finishes its cleanup a little later (it keeps the key meanwhile).
            setTimeout(() => {
              clearTimeout(t);
              resolve();
            }, 20);
          });
        });
        return undefined;
      } finally {
        active.delete(req.name);
      }
    };
    const { Subject, firstValueFrom, take, toArray } = await import('rxjs');
    const input = new Subject<string>();
    const outcomes = firstValueFrom(input.pipe(workQueue(reconcile, { supersede: true }), take(2), toArray()));
    input.next('a');
    await new Promise((r) => setTimeout(r, 10));
    input.next('a');
    const [first, second] = await outcomes;
    expect(first).toMatchObject({ key: 'a', kind: 'superseded', attempt: 1 });
    expect(first?.error).toBeInstanceOf(ReconcileAbortedError);
    expect((first?.error as ReconcileAbortedError).reason).toBe('superseded');
    expect(second).toMatchObject({ key: 'a', kind: 'success', attempt: 1 });
    expect(reasons).toHaveLength(1);
    expect(overlaps).toBe(0);
  });
});

describe('controller({ supersede: true })', () => {
  it(
    'a newer event for the key aborts ctx.signal of the running reconcile and runs it again',
    marbles((m) => {
      const cm = (rv: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', resourceVersion: rv } });
      const seen: string[] = [];
      const source = fakeSource({
        resource: { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true },
        initial: [cm('1')],
        events$: m.hot('---u', { u: updated(cm('1'), cm('2')) }),
      });
      const ctl = controller({
        name: `supersede-${Math.random()}`,
        for: source,
        scheduler: m.scheduler,
        supersede: true,
        reconcile: (_req, ctx) =>
          timer(5).pipe(
            map(() => void seen.push(`done rv=${ctx.object?.metadata?.resourceVersion}`)),
            finalize(() => ctx.signal.aborted && seen.push(`aborted: ${(ctx.signal.reason as Error).message}`)),
          ),
      });
      m.expect(ctl.run().pipe(map((o) => o.kind))).toBeObservable('---s----c', { s: 'superseded', c: 'success' });
      m.scheduler.schedule(() => expect(seen).toEqual(['aborted: reconcile aborted: superseded by a newer event for its key', 'done rv=2']), 20);
    }),
  );
});
