/**
 * The work queue's `halt` option (fencing): when it aborts, running reconciles' signals abort at
 * once with its reason and are reported `aborted`, queued keys are dropped, nothing more is handed
 * out, and the output completes — without the graceful shutdown's grace period, also when a
 * graceful shutdown is already under way.
 */
import { NEVER, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import type { WorkQueueInput } from '../../src/workqueue/request.js';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { Reconciler } from '../../src/workqueue/reconciler.js';

function setup(options: { shutdownFirst: boolean }) {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const input = new Subject<WorkQueueInput>();
  const halt = new AbortController();
  const shutdown = new AbortController();
  const signals: Record<string, AbortSignal> = {};
  const started: string[] = [];
  const outcomes: ReconcileOutcome[] = [];
  let completedAt: number | undefined;
  const reconcile: Reconciler = (req, signal) => {
    started.push(`${req.name}@${ts.now()}`);
    signals[req.name] = signal;
    return NEVER; // runs until aborted
  };
  ts.run(() => {
    input
      .pipe(workQueue(reconcile, { concurrency: 1, scheduler: ts, halt: halt.signal, shutdown: shutdown.signal, shutdownGracePeriodMs: 30_000 }))
      .subscribe({ next: (o) => outcomes.push(o), complete: () => (completedAt = ts.now()) });
    ts.schedule(() => input.next('a'), 0);
    ts.schedule(() => input.next('b'), 1); // queued behind a
    if (options.shutdownFirst) ts.schedule(() => shutdown.abort(), 5);
    ts.schedule(() => halt.abort(new Error('leadership lost')), 10);
    ts.flush();
  });
  return { started, outcomes, signals, completedAt: () => completedAt };
}

describe('workQueue halt', () => {
  for (const shutdownFirst of [false, true]) {
    it(`aborts running reconciles at once and hands out nothing more${shutdownFirst ? ' (during a graceful shutdown)' : ''}`, () => {
      const { started, outcomes, signals, completedAt } = setup({ shutdownFirst });
      expect(started).toEqual(['a@0']);
      expect(signals['a']?.aborted).toBe(true);
      expect((signals['a']?.reason as Error).message).toBe('leadership lost');
      expect(outcomes.map((o) => `${o.key}:${o.kind}`)).toEqual(['a:aborted']);
      expect((outcomes[0]?.error as Error).message).toBe('leadership lost');
      expect(completedAt()).toBe(10);
    });
  }
});
