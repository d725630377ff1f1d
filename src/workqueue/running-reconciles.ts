import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';
import type { InFlightReconcile } from './in-flight-reconcile.js';
import { UNFINISHED_WORK_UPDATE_PERIOD, type WorkQueueMetrics } from './metrics.js';

/**
 * The reconciles a work queue is running, and the metrics about them: while any runs,
 * `unfinishedWorkSeconds` and `longestRunningProcessorSeconds` are reported every
 * {@link UNFINISHED_WORK_UPDATE_PERIOD} ms (then once more, with 0), on the queue's scheduler.
 */
export class RunningReconciles implements Iterable<InFlightReconcile> {
  private readonly runs = new Set<InFlightReconcile>();
  /** Timed-out Promise reconciles still running, whose worker slot was given back. */
  private readonly letGo = new Set<InFlightReconcile>();
  private readonly reportsUnfinished: boolean;
  private ticker: Subscription | undefined;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly metrics: WorkQueueMetrics,
  ) {
    this.reportsUnfinished =
      metrics.unfinishedWorkSeconds !== undefined || metrics.longestRunningProcessorSeconds !== undefined;
  }

  /** Every reconcile still running, also those let go (their keys are held until they settle). */
  get size(): number {
    return this.runs.size;
  }

  /** Worker slots in use: the running reconciles but those {@link letGo let go}. */
  get slotsInUse(): number {
    return this.runs.size - this.letGo.size;
  }

  /** How many timed-out reconciles run without a slot. */
  get lettingGo(): number {
    return this.letGo.size;
  }

  /** Gives `run`'s worker slot back while it keeps running (its key stays held). */
  releaseSlot(run: InFlightReconcile): void {
    if (this.runs.has(run)) this.letGo.add(run);
  }

  [Symbol.iterator](): Iterator<InFlightReconcile> {
    return this.runs.values();
  }

  /** A copy, for loops that remove runs. */
  snapshot(): InFlightReconcile[] {
    return [...this.runs];
  }

  /** The run of `key`, if one runs (at most one per key). */
  byKey(key: string): InFlightReconcile | undefined {
    for (const run of this.runs) if (run.item.key === key) return run;
    return undefined;
  }

  add(run: InFlightReconcile): void {
    this.runs.add(run);
    if (this.reportsUnfinished && this.ticker === undefined) {
      this.ticker = this.scheduler.schedule(RunningReconciles.tick, UNFINISHED_WORK_UPDATE_PERIOD, this);
    }
  }

  /** Returns false when `run` was not (or no longer) counted as running. */
  delete(run: InFlightReconcile): boolean {
    this.letGo.delete(run);
    return this.runs.delete(run);
  }

  /** Forgets every run and stops reporting. */
  clear(): void {
    this.ticker?.unsubscribe();
    this.ticker = undefined;
    this.runs.clear();
    this.letGo.clear();
  }

  private static tick(this: SchedulerAction<RunningReconciles>, running: RunningReconciles): void {
    if (running.report()) this.schedule(running, UNFINISHED_WORK_UPDATE_PERIOD);
  }

  /** Reports the ages of the running reconciles; returns true while any is left to report on. */
  private report(): boolean {
    const now = this.scheduler.now();
    let sum = 0;
    let max = 0;
    for (const run of this.runs) {
      const age = (now - run.item.startedAt) / 1000;
      sum += age;
      if (age > max) max = age;
    }
    this.metrics.unfinishedWorkSeconds?.(sum);
    this.metrics.longestRunningProcessorSeconds?.(max);
    if (this.runs.size > 0) return true;
    this.ticker = undefined;
    return false;
  }
}
