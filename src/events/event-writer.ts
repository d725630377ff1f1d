import { EMPTY, type Observable, type SchedulerLike, Subject, type Subscription, catchError, concatMap, defer, fromEvent, switchMap, takeUntil, tap, throwError, timer } from 'rxjs';
import { ApiError, isNotFound } from '../client/api-error.js';
import type { Logger } from '../logging/logger.js';
import type { CoreEvent } from './core-event.js';
import type { EventCorrelator } from './event-correlator.js';
import type { EventsApi } from './events-api.js';

/**
 * Where an event writer is:
 *
 * ```
 * writing ──stop (shutdown)──▶ stopped
 * ```
 *
 * - `writing`: takes events and writes them one at a time, in order.
 * - `stopped`: takes nothing; what was waiting is abandoned and every `flush()` resolved.
 */
export type EventWriterPhase = 'writing' | 'stopped';

/** What an {@link EventWriter} needs: where to write, how to correlate, how often to retry. */
export interface EventWriterOptions {
  readonly api: EventsApi;
  readonly correlator: EventCorrelator;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** Attempts per event on transport errors. */
  readonly maxTries: number;
  /** Wait between attempts, in ms of `scheduler`. */
  readonly retryIntervalMs: number;
  /**
   * Told how many events a fence took when it aborted: those waiting, retrying or on the wire
   * (once per fence; see {@link EventWriter.enqueue}).
   */
  readonly fenced?: (dropped: number) => void;
}

/** One event waiting in the writer, with the signal whose abort takes the right to send it away. */
interface QueuedEvent {
  readonly event: CoreEvent;
  readonly fence: AbortSignal | undefined;
}

/** The unsent events of one fence, and the listener that drops them when it aborts. */
interface FenceWatch {
  readonly unsent: Set<QueuedEvent>;
  readonly onAbort: () => void;
}

function withoutResourceVersion(e: CoreEvent): CoreEvent {
  const { resourceVersion: _rv, ...metadata } = e.metadata;
  return { ...e, metadata };
}

/**
 * The background half of an event recorder (internal: the public surface is `eventRecorder()`):
 * a queue of events written one at a time through the correlator (skip, create, or patch with a
 * create when the patch finds nothing), transport errors retried `maxTries` times, API errors
 * logged and not retried. Counts what is waiting so that `flush()` can resolve when nothing is.
 * Its phase changes only in `stop`.
 *
 * Fencing: an event enqueued with a `fence` signal is sent only while that signal has not aborted.
 * The moment it aborts, every event of that fence not sent yet is dropped: those waiting are
 * skipped when their turn comes, one waiting between retries is not tried again, and one on the
 * wire is abandoned (its request aborted; the server may have received it already). The count is
 * reported once, through `fenced`, and logged once (warn).
 */
export class EventWriter {
  private phase: EventWriterPhase = 'writing';
  /** Events enqueued and not yet written, dropped or given up. */
  private waiting = 0;
  private flushes: (() => void)[] = [];
  private readonly queue = new Subject<QueuedEvent>();
  private readonly subscription: Subscription;
  /** Per fence signal, its events not yet sent (waiting, retrying or on the wire). */
  private readonly fences = new Map<AbortSignal, FenceWatch>();

  constructor(private readonly o: EventWriterOptions) {
    this.subscription = this.queue
      .pipe(
        concatMap((queued) =>
          this.write(queued).pipe(
            catchError(() => EMPTY),
            tap({ finalize: () => this.settle(queued) }),
          ),
        ),
      )
      .subscribe();
  }

  /** Whether events are taken (the writer was not stopped). */
  get isWriting(): boolean {
    return this.phase === 'writing';
  }

  /** Events waiting to be written. */
  get pending(): number {
    return this.waiting;
  }

  /**
   * Queues `event` behind those waiting (ignored once stopped). With `fence`, the event is sent
   * only while `fence` has not aborted (the caller checks that it has not aborted yet).
   */
  enqueue(event: CoreEvent, fence?: AbortSignal): void {
    if (this.phase !== 'writing') return;
    const queued: QueuedEvent = { event, fence };
    if (fence !== undefined) this.watch(queued, fence);
    this.waiting++;
    this.queue.next(queued);
  }

  /** Resolves once every event enqueued so far was written, dropped or given up (or the writer stopped). */
  flush(): Promise<void> {
    return this.waiting === 0 ? Promise.resolve() : new Promise<void>((resolve) => this.flushes.push(resolve));
  }

  // ---- phase transition: the only code that changes `phase` -----------------------------------

  /** writing → stopped: abandons what is waiting and resolves every pending `flush()`. */
  stop(): void {
    this.phase = 'stopped';
    this.subscription.unsubscribe();
    for (const [fence, watch] of this.fences) fence.removeEventListener('abort', watch.onAbort);
    this.fences.clear();
    this.waiting = 0;
    this.resolveFlushes();
  }

  // ---- writing ---------------------------------------------------------------------------------

  private settle(queued: QueuedEvent): void {
    if (this.phase === 'stopped') return;
    if (queued.fence !== undefined) this.unwatch(queued, queued.fence);
    this.waiting--;
    if (this.waiting === 0) this.resolveFlushes();
  }

  private resolveFlushes(): void {
    const resolves = this.flushes;
    this.flushes = [];
    for (const resolve of resolves) resolve();
  }

  // ---- fencing ---------------------------------------------------------------------------------

  private watch(queued: QueuedEvent, fence: AbortSignal): void {
    let watch = this.fences.get(fence);
    if (watch === undefined) {
      const created: FenceWatch = { unsent: new Set(), onAbort: () => this.fenceAborted(fence) };
      this.fences.set(fence, created);
      fence.addEventListener('abort', created.onAbort, { once: true });
      watch = created;
    }
    watch.unsent.add(queued);
  }

  /** `queued` was sent, dropped or given up: its fence no longer needs watching for it. */
  private unwatch(queued: QueuedEvent, fence: AbortSignal): void {
    const watch = this.fences.get(fence);
    if (watch === undefined) return;
    watch.unsent.delete(queued);
    if (watch.unsent.size > 0) return;
    fence.removeEventListener('abort', watch.onAbort);
    this.fences.delete(fence);
  }

  /** The fence aborted: what it guarded is dropped (skipped at its turn, or its request abandoned). */
  private fenceAborted(fence: AbortSignal): void {
    const watch = this.fences.get(fence);
    this.fences.delete(fence);
    const dropped = watch?.unsent.size ?? 0;
    if (dropped === 0 || this.phase === 'stopped') return;
    this.o.logger.warn('the right to write was lost (fenced): dropping events not sent yet', { dropped });
    this.o.fenced?.(dropped);
  }

  // ---- one event -------------------------------------------------------------------------------

  /**
   * One event: correlated when its turn comes, then created or patched, retried on transport
   * errors; nothing when its fence aborted, and abandoned when it aborts meanwhile.
   */
  private write(queued: QueuedEvent): Observable<CoreEvent> {
    const { fence } = queued;
    if (fence === undefined) return this.send(queued.event);
    return defer(() => (fence.aborted ? EMPTY : this.send(queued.event).pipe(takeUntil(fromEvent(fence, 'abort')))));
  }

  private send(event: CoreEvent): Observable<CoreEvent> {
    return defer(() => {
      const { api, correlator, logger } = this.o;
      const result = correlator.correlate(event);
      if (result.action === 'skip') {
        logger.debug('event dropped by spam filter', { reason: event.reason, object: event.involvedObject.name });
        return EMPTY;
      }
      const ns = result.event.metadata.namespace;
      const create$ = defer(() => api.create(ns, withoutResourceVersion(result.event)));
      const once$ =
        result.action === 'patch'
          ? defer(() => api.patch(ns, result.event.metadata.name, result.patch)).pipe(
              catchError((err: unknown) => (isNotFound(err) ? create$ : throwError(() => err))),
            )
          : create$;
      return this.attempt(once$, event, 0).pipe(tap((written) => correlator.updateState(result.key, written)));
    });
  }

  private attempt(once$: Observable<CoreEvent>, event: CoreEvent, tries: number): Observable<CoreEvent> {
    const { logger, maxTries, retryIntervalMs, scheduler } = this.o;
    return once$.pipe(
      catchError((err: unknown) => {
        if (err instanceof ApiError) {
          logger.error('server rejected event (will not retry)', { reason: event.reason, err });
          return EMPTY;
        }
        if (tries + 1 >= maxTries) {
          logger.error('unable to write event (giving up)', { reason: event.reason, tries: tries + 1, err });
          return EMPTY;
        }
        return timer(retryIntervalMs, scheduler).pipe(switchMap(() => this.attempt(once$, event, tries + 1)));
      }),
    );
  }
}
