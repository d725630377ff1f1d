import { defer, map, NEVER, Observable, type SchedulerLike, Subject, throwError, timer, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { Reconciler } from '../../src/workqueue/reconciler.js';
import { bucketRateLimiter } from '../../src/workqueue/bucket-rate-limiter.js';
import { exponentialFailureRateLimiter } from '../../src/workqueue/exponential-failure-rate-limiter.js';
import { InvalidRequestError } from '../../src/workqueue/invalid-request-error.js';
import { ReconcileAbortedError } from '../../src/workqueue/reconcile-aborted-error.js';
import type { ReconcileOutcome, ReconcileResult } from '../../src/workqueue/reconcile-result.js';
import { ReconcileTimeoutError } from '../../src/workqueue/reconcile-timeout-error.js';
import type { Request, WorkQueueInput } from '../../src/workqueue/request.js';
import { TerminalError } from '../../src/workqueue/terminal-error.js';
import { WorkQueueOptionsError } from '../../src/workqueue/work-queue-options-error.js';
import { marbles } from '../helpers/marbles.js';

type Step = { ms: number; result?: ReconcileResult; error?: unknown };

/**
 * A reconcile step scripted per key: each call takes the next step (the last one repeats) and
 * takes `ms` virtual milliseconds. Records calls as `key@time`.
 */
function scripted(script: Record<string, Step[]>, now: () => number, calls: string[] = []): Reconciler {
  const used = new Map<string, number>();
  return (req: Request) =>
    defer(() => {
      const key = req.namespace ? `${req.namespace}/${req.name}` : req.name;
      const steps = script[key] ?? [{ ms: 1 }];
      const i = used.get(key) ?? 0;
      used.set(key, i + 1);
      const step = steps[Math.min(i, steps.length - 1)]!;
      calls.push(`${key}@${now()}`);
      return timer(step.ms).pipe(
        map(() => {
          if (step.error !== undefined) throw step.error;
          return step.result;
        }),
      );
    });
}

const label = (o: ReconcileOutcome): string => `${o.key}:${o.kind}`;

describe('workQueue', () => {
  it(
    'matches the marble diagram in its doc comment',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const out = m
        .cold('-ab-a---------|')
        .pipe(workQueue(scripted({ a: [{ ms: 4 }], b: [{ ms: 3 }] }, now)), map((o) => o.key.toUpperCase()));
      m.expect(out).toBeObservable('-----A--B---A-|');
    }),
  );

  it(
    'holds a queued key once however often it is added (dedup)',
    marbles((m) => {
      const now = () => m.scheduler.now();
      // b runs 0..10; a is added at 1, 3, 5 while queued → one reconcile of a at 10..11
      const input = m.hot('ba-a-a');
      const out = input.pipe(workQueue(scripted({ b: [{ ms: 10 }] }, now))).pipe(map(label));
      m.expect(out).toBeObservable('10ms xy', { x: 'b:success', y: 'a:success' });
    }),
  );

  it(
    'runs a key added during its own reconcile once more afterwards, never concurrently',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      // a runs 0..5; re-added at 2 and 3 (concurrency 4, so a worker is free) → runs again 5..10
      const input = m.hot('a-aa');
      const out = input
        .pipe(workQueue(scripted({ a: [{ ms: 5 }] }, now, calls), { concurrency: 4 }))
        .pipe(map(label));
      m.expect(out).toBeObservable('5ms x 4ms y', { x: 'a:success', y: 'a:success' });
      m.flush();
      expect(calls).toEqual(['a@0', 'a@5']);
    }),
  );

  it(
    'limits concurrency and hands keys out first in first out',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const input = m.hot('(abcde)');
      const seen: string[] = [];
      input
        .pipe(workQueue(scripted({}, now, calls), { concurrency: 2 }))
        .subscribe((o) => seen.push(`${o.key}@${now()}`));
      m.flush();
      expect(calls).toEqual(['a@0', 'b@0', 'c@1', 'd@1', 'e@2']);
      expect(seen).toEqual(['a@1', 'b@1', 'c@2', 'd@2', 'e@3']);
    }),
  );

  it(
    'requeues after requeueAfter and forgets the failure count',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const limiter = exponentialFailureRateLimiter({ baseDelayMs: 5 });
      const script = { a: [{ ms: 1, error: new Error('x') }, { ms: 1, result: { requeueAfter: 20 } }, { ms: 1 }] };
      const out = m
        .hot('a')
        .pipe(workQueue(scripted(script, now, calls), { rateLimiter: limiter }), map(label));
      // error at 1 → +5 → run 6..7 requeue_after 20 → run 27..28
      m.expect(out).toBeObservable('-x 5ms y 20ms z', { x: 'a:error', y: 'a:requeue_after', z: 'a:success' });
      m.flush();
      expect(calls).toEqual(['a@0', 'a@6', 'a@27']);
      expect(limiter.numRequeues('a')).toBe(0);
    }),
  );

  it(
    'grows the backoff exponentially on repeated errors and resets it on success',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const err = { ms: 0, error: new Error('boom') };
      const script = { a: [err, err, err, err, { ms: 0 }] };
      const outcomes: ReconcileOutcome[] = [];
      m.hot('a').pipe(workQueue(scripted(script, now, calls))).subscribe((o) => outcomes.push(o));
      m.flush();
      // default limiter: 5, 10, 20, 40 ms
      expect(calls).toEqual(['a@0', 'a@5', 'a@15', 'a@35', 'a@75']);
      expect(outcomes.map((o) => [o.kind, o.attempt, o.requeueAfter])).toEqual([
        ['error', 1, 5],
        ['error', 2, 10],
        ['error', 3, 20],
        ['error', 4, 40],
        ['success', 5, undefined],
      ]);
    }),
  );

  it(
    'requeue: true requeues rate-limited',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const script = { a: [{ ms: 0, result: { requeue: true } }, { ms: 0, result: { requeue: true } }, { ms: 0 }] };
      m.hot('a').pipe(workQueue(scripted(script, now, calls))).subscribe();
      m.flush();
      expect(calls).toEqual(['a@0', 'a@5', 'a@15']);
    }),
  );

  it(
    'keeps the earliest of several pending requeue times (DQ-2)',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const input = m.hot('-a--b-c', {
        a: 'k',
        b: { request: 'k', after: 50 },
        c: { request: 'k', after: 20 },
      });
      input.pipe(workQueue(scripted({ k: [{ ms: 1 }] }, now, calls))).subscribe();
      m.flush();
      // k runs at 1; then addAfter 50 (due 54) and addAfter 20 (due 26): only 26 fires
      expect(calls).toEqual(['k@1', 'k@26']);
    }),
  );

  it(
    'makes a scheduled key due at once when it is added directly (PQ-1)',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const input = m.hot('a-b', { a: { request: 'k', after: 30 }, b: 'k' });
      input.pipe(workQueue(scripted({}, now, calls))).subscribe();
      m.flush();
      expect(calls).toEqual(['k@2']);
    }),
  );

  it(
    'fires scheduled keys in due-time order',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const input = m.hot('(abc)', {
        a: { request: 'x', after: 1000 },
        b: { request: 'y', after: 500 },
        c: { request: 'z', after: 250 },
      });
      input.pipe(workQueue(scripted({}, now, calls))).subscribe();
      m.flush();
      expect(calls).toEqual(['z@250', 'y@500', 'x@1000']);
    }),
  );

  it(
    'reports a terminal error without requeueing or forgetting',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const limiter = exponentialFailureRateLimiter();
      const script = { a: [{ ms: 1, error: new Error('retry') }, { ms: 1, error: new TerminalError(new Error('bad spec')) }] };
      const out = m.hot('a').pipe(workQueue(scripted(script, now, calls), { rateLimiter: limiter }), map(label));
      m.expect(out).toBeObservable('-x 5ms y', { x: 'a:error', y: 'a:terminal_error' });
      m.flush();
      expect(calls).toEqual(['a@0', 'a@6']);
      expect(limiter.numRequeues('a')).toBe(1);
    }),
  );

  it(
    'treats a thrown reconcile as an error and keeps running (CR-2)',
    marbles((m) => {
      let n = 0;
      const reconcile: Reconciler = () => {
        n++;
        if (n === 1) throw new Error('panic');
        return timer(1).pipe(map(() => undefined));
      };
      const out = m.hot('ab').pipe(workQueue(reconcile), map(label));
      m.expect(out).toBeObservable('a-b 3ms c', { a: 'a:error', b: 'b:success', c: 'a:success' });
    }),
  );

  it(
    'lets the token bucket limit a burst of failing keys',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const rateLimiter = bucketRateLimiter({ qps: 10, burst: 2 });
      const keys = 'abcd';
      const script = Object.fromEntries([...keys].map((k) => [k, [{ ms: 0, error: new Error(k) }, { ms: 0 }]]));
      m.hot(`(${keys})`).pipe(workQueue(scripted(script, now, calls), { rateLimiter })).subscribe();
      m.flush();
      // 4 errors at t=0 take 4 tokens: 2 immediately, then 100 ms, 200 ms
      expect(calls.slice(4)).toEqual(['a@0', 'b@0', 'c@100', 'd@200']);
    }),
  );

  it(
    'on input completion lets running reconciles finish and drops queued keys',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const out = m.cold('(ab|)').pipe(workQueue(scripted({ a: [{ ms: 10 }] }, now, calls)), map(label));
      m.expect(out).toBeObservable('10ms (x|)', { x: 'a:success' });
      m.flush();
      expect(calls).toEqual(['a@0']);
    }),
  );

  it(
    'with drain: hands out due keys before completing',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const out = m
        .cold('(ab|)')
        .pipe(workQueue(scripted({ a: [{ ms: 10 }], b: [{ ms: 2, result: { requeueAfter: 5 } }] }, now), { drain: true }), map(label));
      // b's requeue is dropped: no new work after shutdown
      m.expect(out).toBeObservable('10ms x 1ms (y|)', { x: 'a:success', y: 'b:requeue_after' });
    }),
  );

  it(
    'aborts reconciles still running when the grace period ends',
    marbles((m) => {
      const signals: AbortSignal[] = [];
      const reconcile: Reconciler = (_req, signal) => {
        signals.push(signal);
        return NEVER;
      };
      const outcomes: ReconcileOutcome[] = [];
      const out = m.cold('a|').pipe(workQueue(reconcile, { shutdownGracePeriodMs: 30 }));
      m.expect(out.pipe(map(label))).toBeObservable('31ms (x|)', { x: 'a:aborted' });
      out.subscribe((o) => outcomes.push(o));
      m.flush();
      expect(signals[0]!.aborted).toBe(true);
      expect(signals[0]!.reason).toBeInstanceOf(ReconcileAbortedError);
      expect(outcomes[0]!.error).toBeInstanceOf(ReconcileAbortedError);
      expect(outcomes[0]!.duration).toBe(31); // started at 0, input completed at 1, grace 30
    }),
  );

  it(
    'stops gracefully when the shutdown notifier fires, then completes',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const shutdown = m.hot('--x');
      const out = m
        .hot('a-b')
        .pipe(workQueue(scripted({ a: [{ ms: 5 }] }, now), { shutdown }), map(label));
      m.expect(out).toBeObservable('5ms (x|)', { x: 'a:success' });
    }),
  );

  it(
    'stops gracefully when the shutdown AbortSignal aborts',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const ctrl = new AbortController();
      m.scheduler.schedule(() => ctrl.abort(), 2);
      const out = m
        .hot('a-b')
        .pipe(workQueue(scripted({ a: [{ ms: 5 }] }, now), { shutdown: ctrl.signal }), map(label));
      m.expect(out).toBeObservable('5ms (x|)', { x: 'a:success' });
    }),
  );

  it('completes at once when the shutdown signal is already aborted', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ hot, expectObservable }) => {
      expectObservable(hot('a').pipe(workQueue(() => undefined, { shutdown: AbortSignal.abort() }))).toBe('|');
    });
  });

  it(
    'errors with the input error after running reconciles finished',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const out = m.hot('a-#').pipe(workQueue(scripted({ a: [{ ms: 5 }] }, now)), map(label));
      m.expect(out).toBeObservable('5ms (x#)', { x: 'a:success' });
    }),
  );

  it(
    'aborts running reconciles at once on unsubscribe',
    marbles((m) => {
      const signals: AbortSignal[] = [];
      const reconcile: Reconciler = (_req, signal) => {
        signals.push(signal);
        return NEVER;
      };
      const out = m.hot('a').pipe(workQueue(reconcile));
      m.expect(out, '^--!').toBeObservable('---');
      m.flush();
      expect(signals).toHaveLength(1);
      expect(signals[0]!.reason).toEqual(new ReconcileAbortedError('unsubscribed'));
    }),
  );

  it(
    'times a reconcile out, aborts its signal and retries it (CR-3)',
    marbles((m) => {
      const signals: AbortSignal[] = [];
      let n = 0;
      const reconcile: Reconciler = (_req, signal) => {
        signals.push(signal);
        return n++ === 0 ? NEVER : timer(1).pipe(map(() => undefined));
      };
      const outcomes: ReconcileOutcome[] = [];
      m.hot('a').pipe(workQueue(reconcile, { reconcileTimeoutMs: 10 })).subscribe((o) => outcomes.push(o));
      m.flush();
      expect(outcomes.map((o) => [o.kind, o.timedOut, o.startedAt])).toEqual([
        ['error', true, 0],
        ['success', false, 15],
      ]);
      expect(outcomes[0]!.error).toBeInstanceOf(ReconcileTimeoutError);
      expect(signals[0]!.aborted).toBe(true);
    }),
  );

  it(
    'accepts Request objects and WorkQueueAdd with priority',
    marbles((m) => {
      const now = () => m.scheduler.now();
      const calls: string[] = [];
      const input = m.hot('a(bcd)', {
        a: { namespace: 'ns', name: 'busy' },
        b: { request: 'low', priority: -100 },
        c: 'mid',
        d: { request: { name: 'high' }, priority: 10 },
      });
      input.pipe(workQueue(scripted({ 'ns/busy': [{ ms: 5 }] }, now, calls))).subscribe();
      m.flush();
      expect(calls).toEqual(['ns/busy@0', 'high@5', 'mid@6', 'low@7']);
    }),
  );

  it(
    'errors with InvalidRequestError for an invalid input',
    marbles((m) => {
      const out = m.hot('a-b', { a: 'x', b: '/bad' as string }).pipe(workQueue(() => undefined), map(label));
      m.expect(out).toBeObservable('x-#', { x: 'x:success' }, new InvalidRequestError('request key must be "namespace/name" or "name", got "/bad"'));
    }),
  );

  it('never asks the scheduler for a delay Node would clamp, and never schedules an infinite one', () => {
    const vts = new VirtualTimeScheduler(VirtualAction, Infinity);
    const delays: number[] = [];
    const scheduler: SchedulerLike = {
      now: () => vts.now(),
      schedule: ((work: never, delay?: number, state?: never) => {
        delays.push(delay ?? 0);
        return vts.schedule(work, delay, state);
      }) as SchedulerLike['schedule'],
    };
    const calls: number[] = [];
    const input = new Subject<WorkQueueInput>();
    input
      .pipe(
        workQueue(
          () => {
            calls.push(vts.now());
          },
          { scheduler },
        ),
      )
      .subscribe();
    const month = 30 * 24 * 3600 * 1000;
    input.next({ request: 'far', after: month });
    input.next({ request: 'never', after: Infinity });
    vts.flush();
    expect(calls).toEqual([month]);
    expect(Math.max(...delays)).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(delays.length).toBe(2); // one clamped wake-up, then the rest
  });

  it(
    'waits for running reconciles without limit when the grace period is Infinity or beyond a timer',
    marbles((m) => {
      const now = () => m.scheduler.now();
      for (const shutdownGracePeriod of [Infinity, 2 ** 32]) {
        const out = m
          .cold('a|')
          .pipe(workQueue(scripted({ a: [{ ms: 100_000 }] }, now), { shutdownGracePeriodMs: shutdownGracePeriod, reconcileTimeoutMs: 2 ** 40 }), map(label));
        m.expect(out).toBeObservable('100000ms (x|)', { x: 'a:success' });
      }
    }),
  );

  it('rejects invalid options with WorkQueueOptionsError', () => {
    expect(() => workQueue(() => undefined, { concurrency: 1.5 })).toThrow(WorkQueueOptionsError);
    expect(() => workQueue(() => undefined, { reconcileTimeoutMs: -1 })).toThrow(WorkQueueOptionsError);
    expect(() => workQueue(() => undefined, { shutdownGracePeriodMs: Number.NaN })).toThrow(WorkQueueOptionsError);
  });

  it('works with async reconcile functions in real time', async () => {
    const seen: string[] = [];
    const outcomes = await new Promise<ReconcileOutcome[]>((resolve, reject) => {
      const acc: ReconcileOutcome[] = [];
      const input = new Subject<string>();
      input
        .pipe(
          workQueue(
            async (req) => {
              seen.push(req.name);
              await new Promise((r) => setTimeout(r, 5));
              if (req.name === 'fail') throw new TerminalError('no');
              return { requeue: false };
            },
            { concurrency: 2, drain: true },
          ),
        )
        .subscribe({ next: (o) => acc.push(o), error: reject, complete: () => resolve(acc) });
      input.next('a');
      input.next('fail');
      input.next('a');
      input.complete();
    });
    expect(seen).toEqual(['a', 'fail', 'a']);
    expect(outcomes.map(label)).toEqual(['a:success', 'fail:terminal_error', 'a:success']);
  });

  it('keeps a timed-out Promise reconcile\'s key until the Promise settles', async () => {
    const log: string[] = [];
    const outcomes = await new Promise<ReconcileOutcome[]>((resolve, reject) => {
      const acc: ReconcileOutcome[] = [];
      const input = new Subject<string>();
      let n = 0;
      input
        .pipe(
          workQueue(
            async (_req, signal) => {
              const i = n++;
              log.push(`start${i}`);
              if (i === 0) await new Promise((r) => setTimeout(r, 40)); // ignores its signal
              log.push(`end${i}:${signal.aborted}`);
            },
            { reconcileTimeoutMs: 5, concurrency: 4, drain: true },
          ),
        )
        .subscribe({ next: (o) => acc.push(o), error: reject, complete: () => resolve(acc) });
      input.next('a');
      setTimeout(() => input.next('a'), 15); // after the timeout, while the Promise still runs
      setTimeout(() => input.complete(), 20);
    });
    expect(log).toEqual(['start0', 'end0:true', 'start1', 'end1:false']);
    expect(outcomes.map((o) => [o.kind, o.timedOut])).toEqual([
      ['error', true],
      ['success', false],
    ]);
    expect(outcomes[0]!.duration).toBeGreaterThanOrEqual(35);
  });

  it('an Observable reconcile that errors synchronously is an error outcome', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ cold, expectObservable }) => {
      const out = cold('a').pipe(
        workQueue(() => throwError(() => new Error('sync')), { rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 2 }) }),
        map(label),
      );
      expectObservable(out, '^------!').toBe('a-b---c', { a: 'a:error', b: 'a:error', c: 'a:error' });
    });
  });

  it('an Observable reconcile emitting several values uses the last one', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ cold, expectObservable }) => {
      const reconcile: Reconciler = () =>
        new Observable<ReconcileResult>((s) => {
          s.next({ requeueAfter: 3 });
          s.next({});
          s.complete();
        });
      expectObservable(cold('a').pipe(workQueue(reconcile), map(label))).toBe('a', { a: 'a:success' });
    });
  });
});
