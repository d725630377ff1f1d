import type { MonoTypeOperatorFunction } from 'rxjs';
import { defer, tap } from 'rxjs';
import type { ReconcileOutcome } from '../workqueue/reconcile-result.js';
import type { ControllerMetricsRecorder } from './controller-metrics.js';

/**
 * Passes work-queue outcomes through unchanged while recording each in `recorder` under
 * `controller` (CR-1, CR-3, CR-6): `success` / `requeue` / `requeue_after` / `error` as the
 * `result` label, `terminal_error` as `error` plus the terminal counter, `timedOut` as a timeout,
 * the duration (ms → s) in the reconcile-time histogram. `aborted` reconciles (stopped by shutdown)
 * and `superseded` ones (aborted by a newer event, and run again) are not counted. Calls `recorder.init(controller, maxConcurrentReconciles)` on subscribe.
 *
 * ```
 * outcomes: -s--e--t--a-|     s success, e error, t terminal_error, a aborted
 * output:   -s--e--t--a-|     unchanged
 * reconcile_total{result="success"} 1, {result="error"} 2, terminal 1
 * ```
 */
export function recordReconcileMetrics(
  recorder: ControllerMetricsRecorder,
  controller: string,
  maxConcurrentReconciles = 1,
): MonoTypeOperatorFunction<ReconcileOutcome> {
  return (source) =>
    defer(() => {
      recorder.init(controller, maxConcurrentReconciles);
      return source.pipe(
        tap((o) => {
          if (o.kind === 'aborted' || o.kind === 'superseded') return;
          const terminal = o.kind === 'terminal_error';
          const result = terminal ? 'error' : o.kind;
          if (o.request.cluster !== undefined) recorder.clusterReconciled?.(controller, o.request.cluster, result);
          recorder.reconciled(controller, {
            result,
            seconds: o.duration / 1000,
            terminal,
            timeout: o.timedOut,
          });
        }),
      );
    });
}
