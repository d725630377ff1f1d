import type { SchedulerLike, Subscription } from 'rxjs';
import type { Logger } from '../logging/logger.js';

/** Default of the controller option `stuckReconcileThresholdMs`: 10 minutes. */
export const DEFAULT_STUCK_RECONCILE_THRESHOLD_MS = 600_000;

/** One reconcile being watched. */
interface Watched {
  readonly key: string;
  readonly reconcileId: string;
  readonly startedAt: number;
  stuck: boolean;
}

/** Where a {@link StuckReconciles} reports: the reconcile's logger and the stuck-count gauge. */
export interface StuckReport {
  readonly logger: Logger;
  /** Called with the number of stuck reconciles whenever it changes. */
  readonly count?: (stuck: number) => void;
}

/**
 * The reconciles of one controller that have run longer than its stuck threshold (issue 26): each
 * is logged (warn, with the reconcile logger's `controller`, `object` and `reconcileID`) when it
 * crosses the threshold and again when it finally settles, counted in a gauge
 * (`rxkube_controller_stuck_reconciles`), and named by {@link problems}, which backs the manager's
 * built-in liveness check `reconciles` (`/healthz`). A reconcile counts until its Promise settles
 * (or its Observable is torn down), also after its timeout let go of its worker slot. Timers run on
 * the controller's scheduler; a threshold ≤ 0 watches nothing.
 */
export class StuckReconciles {
  private readonly watched = new Set<Watched>();
  private stuckCount = 0;

  constructor(
    /** The controller's name, for {@link problems}. */
    private readonly controller: string,
    readonly thresholdMs: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Starts watching one reconcile; call the returned function once it has settled. */
  track(key: string, reconcileId: string, report: StuckReport): () => void {
    if (!(this.thresholdMs > 0)) return noop;
    const entry: Watched = { key, reconcileId, startedAt: this.scheduler.now(), stuck: false };
    this.watched.add(entry);
    const timer: Subscription = this.scheduler.schedule(() => {
      if (!this.watched.has(entry)) return;
      entry.stuck = true;
      this.stuckCount++;
      report.logger.warn('reconcile is running longer than the stuck threshold', { thresholdMs: this.thresholdMs });
      report.count?.(this.stuckCount);
    }, this.thresholdMs);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      timer.unsubscribe();
      this.watched.delete(entry);
      if (!entry.stuck) return;
      this.stuckCount--;
      report.logger.info('stuck reconcile finished', { durationMs: this.scheduler.now() - entry.startedAt });
      report.count?.(this.stuckCount);
    };
  }

  /** How many reconciles are stuck now. */
  get count(): number {
    return this.stuckCount;
  }

  /** One line per stuck reconcile (`controller c: reconcile of ns/a running for 612 s (threshold 600 s)`); empty when none. */
  problems(): string[] {
    const now = this.scheduler.now();
    return [...this.watched]
      .filter((w) => w.stuck)
      .map(
        (w) =>
          `controller ${this.controller}: reconcile of ${w.key} (reconcileID ${w.reconcileId}) running for ${seconds(now - w.startedAt)} (threshold ${seconds(this.thresholdMs)})`,
      );
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function noop(): void {}
