/** docs/semantics.md §8.1–8.2 (reconcile results, panics, timeouts, defaults), through `workQueue`. */
import { map, NEVER, of, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Reconciler } from '../../src/workqueue/reconciler.js';
import { exponentialFailureRateLimiter } from '../../src/workqueue/exponential-failure-rate-limiter.js';
import { ReconcileTimeoutError } from '../../src/workqueue/reconcile-timeout-error.js';
import { TerminalError } from '../../src/workqueue/terminal-error.js';
import { WorkQueueOptionsError } from '../../src/workqueue/work-queue-options-error.js';
import { workQueue } from '../../src/workqueue/work-queue.js';
import { runQueue } from '../workqueue/harness.js';

describe('§8.1 reconcile results', () => {
  it('CR-1 outcome table: terminal / error / requeueAfter / requeue / success, error wins over a result', () => {
    const limiter = exponentialFailureRateLimiter({ baseDelayMs: 5 });
    const h = runQueue(
      {
        term: [{ ms: 0, error: new Error('outer', { cause: new TerminalError(new Error('bad')) }) }],
        err: [{ ms: 0, error: new Error('x') }, { ms: 0, error: new Error('x') }, { ms: 0 }],
        after: [{ ms: 0, result: { requeueAfter: 30, requeue: true } }, { ms: 0 }],
        req: [{ ms: 0, result: { requeue: true } }, { ms: 0 }],
        ok: [{ ms: 0, result: {} }],
      },
      { rateLimiter: limiter, concurrency: 5 },
      (h) => {
        limiter.when('after'); // a stale failure count, forgotten by requeueAfter
        limiter.when('term');
        for (const k of ['term', 'err', 'after', 'req', 'ok']) h.input.next(k);
      },
    );
    expect(h.calls).toEqual(['term@0', 'err@0', 'after@0', 'req@0', 'ok@0', 'err@5', 'req@5', 'err@15', 'after@30']);
    expect(h.outcomes.slice(0, 5).map((o) => [o.key, o.kind, o.requeueAfter])).toEqual([
      ['term', 'terminal_error', undefined],
      ['err', 'error', 5],
      ['after', 'requeue_after', 30],
      ['req', 'requeue', 5],
      ['ok', 'success', undefined],
    ]);
    // terminal: not forgotten; err: backoff not reset until a non-error result
    expect(limiter.numRequeues('term')).toBe(1);
    expect(limiter.numRequeues('err')).toBe(0);
    expect(limiter.numRequeues('after')).toBe(0);
    // with an error, requeueAfter is ignored
    const e = runQueue({ a: [{ ms: 0, error: new Error('x'), result: { requeueAfter: 1000 } }, { ms: 0 }] }, {}, (h) => h.input.next('a'));
    expect(e.calls).toEqual(['a@0', 'a@5']);
  });

  it('CR-2 a thrown or rejected reconcile (panic analogue) is an ordinary error; the stream keeps running', async () => {
    let n = 0;
    const panicky: Reconciler = () => {
      if (n++ === 0) throw new Error('panic');
      return timer(1).pipe(map(() => undefined));
    };
    const h = runQueue({}, {}, (h) => h.input.next('a'), panicky);
    expect(h.outcomes.map((o) => o.kind)).toEqual(['error', 'success']);
    expect((h.outcomes[0]!.error as Error).message).toBe('panic');
    // async rejection, real time
    const kinds = await new Promise<string[]>((resolve) => {
      const acc: string[] = [];
      let m = 0;
      of('a', 'b')
        .pipe(
          workQueue(
            async () => {
              if (m++ === 0) throw new Error('rejected');
            },
            { drain: true, concurrency: 2 },
          ),
        )
        .subscribe({ next: (o) => acc.push(o.kind), complete: () => resolve(acc) });
    });
    expect(kinds.sort()).toEqual(['error', 'success']);
  });

  it('CR-3 reconcileTimeout: aborts the signal, fails with a timeout error, flags only that deadline', () => {
    const signals: AbortSignal[] = [];
    let n = 0;
    const reconcile: Reconciler = (_r, signal) => {
      signals.push(signal);
      n++;
      if (n === 1) return NEVER;
      if (n === 2) return timer(3).pipe(map(() => { throw new Error('own error'); }));
      return timer(3).pipe(map(() => undefined));
    };
    const h = runQueue({}, { reconcileTimeoutMs: 10 }, (h) => h.input.next('a'), reconcile);
    expect(h.outcomes.map((o) => [o.kind, o.timedOut, o.startedAt])).toEqual([
      ['error', true, 0],
      ['error', false, 15],
      ['success', false, 28],
    ]);
    expect(h.outcomes[0]!.error).toBeInstanceOf(ReconcileTimeoutError);
    expect(signals[0]!.reason).toBeInstanceOf(ReconcileTimeoutError);
    expect(signals[1]!.aborted).toBe(false);
    // default: no timeout
    const none = runQueue({ a: [{ ms: 1_000_000 }] }, {}, (h) => h.input.next('a'));
    expect(none.outcomes.map((o) => [o.kind, o.duration])).toEqual([['success', 1_000_000]]);
  });
});

describe('§8.2 options', () => {
  it('CR-4 defaults: concurrency ≤ 0 → 1; default limiter is per-item exponential 5 ms … 1000 s (priority-queue default)', () => {
    for (const concurrency of [0, -3, undefined]) {
      const h = runQueue({ a: [{ ms: 5 }], b: [{ ms: 5 }] }, concurrency === undefined ? {} : { concurrency }, (h) => {
        h.input.next('a');
        h.input.next('b');
      });
      expect(h.calls).toEqual(['a@0', 'b@5']);
    }
    expect(() => workQueue(() => undefined, { concurrency: Number.NaN })).toThrow(WorkQueueOptionsError);
    // 150 keys fail at once: each waits 5 ms (no shared token bucket in the default)
    const keys = Array.from({ length: 150 }, (_, i) => `k${i}`);
    const script = Object.fromEntries(keys.map((k) => [k, [{ ms: 0, error: new Error(k) }, { ms: 0 }]]));
    const h = runQueue(script, { concurrency: 150 }, (h) => keys.forEach((k) => h.input.next(k)));
    expect(h.calls.slice(150).every((c) => c.endsWith('@5'))).toBe(true);
    expect(h.calls).toHaveLength(300);
  });
});
