import { describeOutcome, type OutcomeLog, type RecordedOutcome } from './outcome-log.js';

/** What virtual time did while `eventually` or `converged` ran it: the facts their errors and results carry. */
export interface VirtualRunReport {
  /** Virtual time (ms) when the call started. */
  readonly startedAt: number;
  /** Virtual time (ms) when it returned or gave up. */
  readonly endedAt: number;
  /** The reconcile outcomes of started controllers during the call, oldest first. */
  readonly reconciles: readonly RecordedOutcome[];
  /** Due times (ms) of the timers still scheduled at the end, earliest first. */
  readonly pendingTimers: readonly number[];
  /**
   * Requeues the started controllers' work queues still hold at the end, as their outcomes tell:
   * each key whose latest outcome asked to come back (`requeueAfter`, a retry after an error)
   * later than the end. Earliest first.
   */
  readonly pendingRequeues: readonly PendingRequeue[];
  /** Watches of the in-process cluster open at the end. */
  readonly openWatches: number;
  /** Started controllers whose `run()` ended with an error: `name: message`. */
  readonly failedControllers: readonly string[];
}

/** A key a started controller's work queue will reconcile again at `dueAt` (ms). */
export interface PendingRequeue {
  readonly controller: string;
  /** `namespace/name`. */
  readonly key: string;
  readonly dueAt: number;
}

/** The requeues still due after `now`: per controller and key, the latest outcome's `requeueAfter`. */
export function pendingRequeues(log: OutcomeLog, now: number): PendingRequeue[] {
  const latest = new Map<string, RecordedOutcome>();
  for (const r of log.all) latest.set(`${r.controller}\u0000${r.outcome.key}`, r);
  const out: PendingRequeue[] = [];
  for (const r of latest.values()) {
    const after = r.outcome.requeueAfter;
    if (after !== undefined && r.at + after > now) out.push({ controller: r.controller, key: r.outcome.key, dueAt: r.at + after });
  }
  return out.sort((a, b) => a.dueAt - b.dueAt);
}

/** Collects a {@link VirtualRunReport} from the log, the clock's timers and the cluster. */
export function runReport(log: OutcomeLog, from: { readonly startedAt: number; readonly logIndex: number }, endedAt: number, pendingTimers: readonly number[], openWatches: number): VirtualRunReport {
  return {
    startedAt: from.startedAt,
    endedAt,
    reconciles: log.all.slice(from.logIndex),
    pendingTimers,
    pendingRequeues: pendingRequeues(log, endedAt),
    openWatches,
    failedControllers: log.failed().map((h) => `${h.controller.name}: ${errorText(h.error)}`),
  };
}

const SHOWN_OUTCOMES = 8;
const SHOWN_TIMERS = 5;

/** `ValueError: message` of a thrown value, on one line. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`.replace(/\s+/g, ' ').trim();
  return String(e);
}

/** The report as indented lines: reconciles run (counts per controller and the last few), pending work. */
export function reportLines(report: VirtualRunReport): string[] {
  const lines: string[] = [];
  const { reconciles } = report;
  if (reconciles.length === 0) lines.push('reconciles run: none');
  else {
    const perController = new Map<string, number>();
    for (const r of reconciles) perController.set(r.controller, (perController.get(r.controller) ?? 0) + 1);
    const counts = [...perController].map(([name, n]) => `${name} ×${n}`).join(', ');
    lines.push(`reconciles run: ${reconciles.length} (${counts}); last ${Math.min(SHOWN_OUTCOMES, reconciles.length)}:`);
    for (const r of reconciles.slice(-SHOWN_OUTCOMES)) lines.push(`  at ${r.at} ms ${r.controller}: ${describeOutcome(r.outcome)}`);
  }
  const timers = report.pendingTimers;
  const next = timers.slice(0, SHOWN_TIMERS).map((t) => `+${t - report.endedAt} ms`).join(', ');
  lines.push(`pending work: ${timers.length} timer${timers.length === 1 ? '' : 's'}${timers.length === 0 ? '' : ` (next due ${next}${timers.length > SHOWN_TIMERS ? ', …' : ''})`}, ${report.openWatches} open watch${report.openWatches === 1 ? '' : 'es'}`);
  const requeues = report.pendingRequeues;
  if (requeues.length > 0) {
    const shown = requeues.slice(0, SHOWN_TIMERS).map((q) => `${q.controller}: ${q.key} at +${q.dueAt - report.endedAt} ms`).join(', ');
    lines.push(`requeues pending: ${shown}${requeues.length > SHOWN_TIMERS ? `, … (${requeues.length})` : ''}`);
  }
  if (report.failedControllers.length > 0) lines.push(`controllers ended with an error: ${report.failedControllers.join('; ')}`);
  return lines;
}
