import { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { type ListWatchOptions, resolveListWatchOptions } from './list-watch-options.js';
import type { ListWatcher } from '../api/list-watcher.js';
import type { ReflectorEvent } from './reflector-event.js';
import { ReflectorRun } from './reflector-run.js';

/**
 * The reflector: a cold Observable of the state of one resource, kept in sync by list + watch.
 *
 * ```
 * subscribe ──list(rv=0)──▶ replace{items, rv} ──watch(rv)──▶ added / modified / deleted / bookmark …
 *   watch closed normally        → watch again from the last resourceVersion (no relist)
 *   no answer (refused, reset)   → connection backoff (100ms ×2, cap 2s), watch again (no relist)
 *   429, 5xx                     → server-error backoff (250ms ×2, cap 4s; Retry-After, at most 60s)
 *   410 Gone / Expired           → relist (at once after a healthy watch, else general backoff)
 *   other errors                 → general backoff (800ms ×2, jitter [d, 2d), cap 30s), relist
 *   a relist after a watch failure waits at least the general backoff
 *   silent for 2 minutes         → abort, connection backoff, watch again from the last version
 * ```
 *
 * Backoffs reset once the server proved healthy again: a successful list resets the connection
 * backoff (so does a watch event), a watch open for `watchHealthyMs` (10 s) resets all three; a watch that fails sooner
 * resets nothing, so persistent watch failure relists ever more slowly. `sharedBackoff: true`
 * restores client-go's single backoff that resets only after 2 quiet minutes.
 *
 * Bounded against a broken or hostile server: at most `maxListPages` pages per list and no
 * repeated continue token, `Retry-After` capped at `maxRetryAfterMs`, objects of another kind or
 * namespace than the transport's `expectedObjects` skipped and reported (`UnexpectedObjectError`).
 *
 * - Each (re)list emits one `replace`. Paged lists are assembled first (client-go's pager, RE-5):
 *   `replace` always carries the complete state at one resourceVersion, so a consumer can swap its
 *   cache atomically; a relist is never half-applied.
 * - `bookmark` advances the resume version without touching objects.
 * - Recoverable errors never end the stream; they are reported on the `status` observer. The
 *   stream errors with `ReflectorFatalError` after `authRetries + 1` consecutive 401/403 answers
 *   (or when `isFatal` says so), and with `ReflectorConfigError` on invalid options.
 * - Unsubscribing aborts the request in flight and cancels every timer.
 *
 * Follows docs/semantics.md §3 (RE-*, BO-*, WL-*); deviations are listed in
 * `test/conformance/EXCLUDED-reflector.md`.
 *
 * @example
 * listWatch(podsListWatcher, { status: { next: (s) => log(s) } }).subscribe((e) => apply(e));
 */
export function listWatch<T extends KubeObject = KubeObject>(
  listWatcher: ListWatcher<T>,
  options: ListWatchOptions = {},
): Observable<ReflectorEvent<T>> {
  return new Observable<ReflectorEvent<T>>((subscriber) => {
    let run: ReflectorRun<T>;
    try {
      run = new ReflectorRun(listWatcher, resolveListWatchOptions(options), subscriber);
    } catch (err) {
      subscriber.error(err);
      return undefined;
    }
    run.start();
    return () => run.stop();
  });
}
