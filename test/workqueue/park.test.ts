/**
 * The work queue's `park` option: a due key `park` holds back is not run, holds no worker and
 * reports no outcome; it comes back, due at once, when park's Observable fires; added again while
 * parked it stays parked; a park that fires while subscribing, or throws, runs the key; a
 * shutdown drops parked keys (their Observables unsubscribed).
 */
import { Observable, of, Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import type { Request, WorkQueueInput } from '../../src/workqueue/request.js';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { Reconciler } from '../../src/workqueue/reconciler.js';

function run(park: (request: Request, key: string) => Observable<unknown> | undefined, script: (input: Subject<WorkQueueInput>, ts: TestScheduler, shutdown: AbortController) => void) {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const input = new Subject<WorkQueueInput>();
  const shutdown = new AbortController();
  const started: string[] = [];
  const outcomes: ReconcileOutcome[] = [];
  let completedAt: number | undefined;
  const reconcile: Reconciler = (req) => {
    started.push(`${req.name}@${ts.now()}`);
    return of(undefined);
  };
  ts.run(() => {
    input
      .pipe(workQueue(reconcile, { concurrency: 1, scheduler: ts, shutdown: shutdown.signal, park }))
      .subscribe({ next: (o) => outcomes.push(o), complete: () => (completedAt = ts.now()) });
    script(input, ts, shutdown);
    ts.flush();
  });
  return { started, outcomes, completedAt: () => completedAt };
}

describe('workQueue park', () => {
  it('a parked key holds no worker and reports nothing; it runs when its wait fires', () => {
    const asked: string[] = [];
    let parks = 0;
    const { started, outcomes } = run(
      (req) => {
        asked.push(req.name);
        if (req.name !== 'a' || parks > 0) return undefined;
        parks++;
        return timer(100);
      },
      (input, ts) => {
        ts.schedule(() => input.next('ns/a'), 0);
        ts.schedule(() => input.next('ns/b'), 1);
        ts.schedule(() => input.next('ns/a'), 50); // added again while parked: stays parked
      },
    );
    expect(started).toEqual(['b@1', 'a@100']);
    expect(outcomes.map((o) => `${o.key} ${o.kind} ${o.startedAt}`)).toEqual(['ns/b success 1', 'ns/a success 100']);
    expect(asked).toEqual(['a', 'b', 'a']);
  });

  it('a wait that fires while subscribing, or a park that throws, runs the key at once', () => {
    const { started } = run(
      (req) => {
        if (req.name === 'a') return of(true);
        throw new Error('park failed');
      },
      (input, ts) => {
        ts.schedule(() => input.next('a'), 0);
        ts.schedule(() => input.next('b'), 20);
      },
    );
    expect(started).toEqual(['a@0', 'b@20']);
  });

  it('a shutdown drops parked keys: their waits are unsubscribed, the output completes', () => {
    let unsubscribed = false;
    const { started, outcomes, completedAt } = run(
      () => new Observable<never>(() => () => void (unsubscribed = true)),
      (input, ts, shutdown) => {
        ts.schedule(() => input.next('a'), 0);
        ts.schedule(() => shutdown.abort(), 5);
      },
    );
    expect(started).toEqual([]);
    expect(outcomes).toEqual([]);
    expect(unsubscribed).toBe(true);
    expect(completedAt()).toBe(5);
  });
});
