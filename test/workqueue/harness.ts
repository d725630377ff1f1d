/** Shared virtual-time harness for the workqueue conformance tests (docs/semantics.md §6, §8.1–8.3). */
import { defer, map, Subject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { Reconciler } from '../../src/workqueue/reconciler.js';
import type { WorkQueueOptions } from '../../src/workqueue/work-queue-options.js';
import { KeyQueue, type QueueItem } from '../../src/workqueue/key-queue.js';
import type { ReconcileOutcome, ReconcileResult } from '../../src/workqueue/reconcile-result.js';
import type { WorkQueueInput } from '../../src/workqueue/request.js';

export type Step = { ms?: number; result?: ReconcileResult; error?: unknown };

/** A manual clock and a KeyQueue on it. */
export function keyQueue<V = undefined>(metrics = {}) {
  let t = 0;
  const q = new KeyQueue<V>(() => t, metrics);
  return { q, advance: (ms: number) => (t += ms), now: () => t };
}

/** Takes every ready key, marking each done right away. */
export function takeAll(q: KeyQueue<unknown>): string[] {
  const out: string[] = [];
  for (let it: QueueItem<unknown> | undefined = q.get(); it !== undefined; it = q.get()) {
    out.push(it.key);
    q.done(it);
  }
  return out;
}

export interface Harness {
  readonly ts: TestScheduler;
  readonly input: Subject<WorkQueueInput>;
  /** `key@time` for each reconcile start. */
  readonly calls: string[];
  readonly outcomes: ReconcileOutcome[];
  /** Schedules an input at virtual time `at`. */
  at(at: number, fn: () => void): void;
  completed: boolean;
}

/**
 * Runs a work queue in virtual time. Each key follows its script of steps (the last repeats);
 * unscripted keys succeed after 1 ms.
 */
export function runQueue(
  script: Record<string, Step[]>,
  options: WorkQueueOptions,
  drive: (h: Harness) => void,
  reconcileOverride?: Reconciler,
): Harness {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const used = new Map<string, number>();
  const h: Harness = {
    ts,
    input: new Subject<WorkQueueInput>(),
    calls: [],
    outcomes: [],
    at: (at, fn) => void ts.schedule(fn, at),
    completed: false,
  };
  const reconcile: Reconciler =
    reconcileOverride ??
    ((req) =>
      defer(() => {
        const key = req.namespace ? `${req.namespace}/${req.name}` : req.name;
        const steps = script[key] ?? [{ ms: 1 }];
        const i = used.get(key) ?? 0;
        used.set(key, i + 1);
        const step = steps[Math.min(i, steps.length - 1)]!;
        h.calls.push(`${key}@${ts.now()}`);
        return timer(step.ms ?? 1).pipe(
          map(() => {
            if (step.error !== undefined) throw step.error;
            return step.result;
          }),
        );
      }));
  ts.run(() => {
    h.input.pipe(workQueue(reconcile, options)).subscribe({
      next: (o) => h.outcomes.push(o),
      complete: () => (h.completed = true),
    });
    drive(h);
    ts.flush();
  });
  return h;
}
