import { EMPTY, type Observable, type SchedulerLike, Subject, type Subscription, catchError, concatMap, defer, switchMap, tap, throwError, timer } from 'rxjs';
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
 */
export class EventWriter {
  private phase: EventWriterPhase = 'writing';
  /** Events enqueued and not yet written, dropped or given up. */
  private waiting = 0;
  private flushes: (() => void)[] = [];
  private readonly queue = new Subject<CoreEvent>();
  private readonly subscription: Subscription;

  constructor(private readonly o: EventWriterOptions) {
    this.subscription = this.queue
      .pipe(
        concatMap((event) =>
          this.write(event).pipe(
            catchError(() => EMPTY),
            tap({ finalize: () => this.settle() }),
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

  /** Queues `event` behind those waiting (ignored once stopped). */
  enqueue(event: CoreEvent): void {
    if (this.phase !== 'writing') return;
    this.waiting++;
    this.queue.next(event);
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
    this.waiting = 0;
    this.resolveFlushes();
  }

  // ---- writing ---------------------------------------------------------------------------------

  private settle(): void {
    if (this.phase === 'stopped') return;
    this.waiting--;
    if (this.waiting === 0) this.resolveFlushes();
  }

  private resolveFlushes(): void {
    const resolves = this.flushes;
    this.flushes = [];
    for (const resolve of resolves) resolve();
  }

  /** One event: correlated when its turn comes, then created or patched, retried on transport errors. */
  private write(event: CoreEvent): Observable<CoreEvent> {
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
