import { BehaviorSubject, from, type Observable, type ObservableInput, type Subscriber, type Subscription } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import type { ObjectKey } from '../cache/keys.js';
import { filterTransition } from './filter-transitions.js';
import { ListenerError } from './informer-errors.js';
import { ListenerBacklog } from './listener-backlog.js';

/** Options of one informer subscriber (one registration). */
export interface ListenerOptions<T extends KubeObject = KubeObject> {
  /** Name in errors and logs. Default `listener-<n>`. */
  readonly name?: string;
  /**
   * Resync period in ms (SI-7, SI-8): 0 = none; otherwise at least 1000, and raised to the
   * informer's resync check period when smaller. Default: the informer's `defaultResyncPeriodMs`.
   */
  readonly resyncPeriodMs?: number;
  /**
   * Only objects passing this predicate are seen, with transitions as client-go's filtering handler
   * (CT-3): an update whose old object passed but whose new one does not becomes a delete, the
   * reverse an add. A tombstone without an object always passes.
   */
  readonly filter?: (object: T) => boolean;
}

/** Options of a subscriber with a processing step (asynchronous consumer). */
export interface ProcessListenerOptions<T extends KubeObject, R> extends ListenerOptions<T> {
  /**
   * The subscriber's handler. The next notification is delivered only when the returned input
   * completes (return nothing for a synchronous handler); meanwhile notifications coalesce per key
   * in this subscriber's backlog. Values emitted by the input are emitted by `events$`. A throw or
   * an error ends this subscriber alone (`events$` errors with {@link ListenerError}, also
   * reported on the informer's `errors$`).
   */
  readonly process: (event: InformerEvent<T>) => ObservableInput<R> | void;
}

/** A subscriber registration: its notifications and its own sync state (SI-11). */
export interface InformerListener<R> {
  /**
   * The notifications; subscribing registers the listener (a late one first gets the cache as
   * initial adds, SI-10), unsubscribing removes it. Shared: concurrent subscribers of one
   * `events$` share one registration; a new subscription after all left is a new registration.
   */
  readonly events$: Observable<R>;
  /** `false`, then `true` once the informer synced and this registration's initial adds were handled (SI-11). */
  readonly synced$: Observable<boolean>;
  hasSynced(): boolean;
}

/** How long one subscriber took over one notification (the informer's `handled$`). */
export interface HandlerTiming {
  /** The registration's name (`ListenerOptions.name`, else `<informer>/listener-<n>`). */
  readonly listener: string;
  /**
   * From handing the notification over until the subscriber was done with it, in ms on the
   * informer's scheduler: the synchronous delivery, or until a `process` step's input completed.
   */
  readonly durationMs: number;
}

/** Informer-side callbacks a listener needs. */
export interface ListenerHost {
  informerSynced(): boolean;
  reportError(error: Error): void;
  /** The informer's clock (ms) when someone observes handler timings, else `undefined` (nothing is measured). */
  timingStart(): number | undefined;
  /** A subscriber finished a notification handed over at `startedAt` (from {@link timingStart}). */
  handled(listener: string, startedAt: number): void;
}

/**
 * One registration: its coalescing backlog, per-registration sync (SI-11) and the pump that
 * delivers one notification at a time to its subscriber. Its resync timing is its informer's
 * (`ListenerResync`, kept by `InformerRun`), not its own.
 */
export class Listener<T extends KubeObject, R> {
  readonly backlog = new ListenerBacklog<T>();
  readonly synced = new BehaviorSubject(false);
  /** Largest backlog size seen (events), for tests and metrics. */
  maxBacklog = 0;
  private busy = false;
  private draining = false;
  private closed = false;
  private upstreamDone = false;
  private inFlightInitial = false;
  private inner: Subscription | undefined;

  constructor(
    readonly name: string,
    private readonly subscriber: Subscriber<R | InformerEvent<T>>,
    private readonly host: ListenerHost,
    private readonly filter: ((object: T) => boolean) | undefined,
    private readonly process: ((event: InformerEvent<T>) => ObservableInput<R> | void) | undefined,
  ) {}

  /** Queues a notification (after the filter) and delivers what can be delivered now. */
  offer(key: ObjectKey, event: InformerEvent<T>): void {
    if (this.closed) return;
    let out: InformerEvent<T> | undefined = event;
    if (this.filter !== undefined) {
      try {
        out = filterTransition(event, this.filter);
      } catch (err) {
        this.fail(event, err);
        return;
      }
    }
    if (out === undefined) return;
    if (!this.busy && !this.draining && this.backlog.size === 0) {
      this.drain(out); // fast path: nothing waiting, nothing to coalesce with
      return;
    }
    this.backlog.push(key, out);
    if (this.backlog.size > this.maxBacklog) this.maxBacklog = this.backlog.size;
    this.drain();
  }

  /** The upstream completed: deliver the backlog, then complete. */
  complete(): void {
    this.upstreamDone = true;
    this.drain();
  }

  /** Re-evaluates SI-11 (call when the informer syncs). */
  checkSynced(): void {
    if (this.synced.value || this.closed) return;
    if (this.host.informerSynced() && this.backlog.pendingInitial === 0 && !this.inFlightInitial) this.synced.next(true);
  }

  /** Stops delivery (unsubscribe). */
  close(): void {
    this.closed = true;
    this.inner?.unsubscribe();
    this.inner = undefined;
    this.backlog.clear();
  }

  /** Delivers `first` (if given, bypassing the backlog), then the backlog, until busy or empty. */
  private drain(first?: InformerEvent<T>): void {
    if (this.draining) return;
    this.draining = true;
    try {
      let event = first;
      while (!this.busy && !this.closed) {
        event ??= this.backlog.shift();
        if (event === undefined) break;
        if (!this.deliver(event)) return;
        event = undefined;
      }
      if (this.upstreamDone && !this.busy && !this.closed && this.backlog.size === 0) this.subscriber.complete();
    } finally {
      this.draining = false;
    }
  }

  /** Hands one notification to the subscriber; false when the subscriber failed. */
  private deliver(event: InformerEvent<T>): boolean {
    const initial = event.type === 'add' && event.isInInitialList;
    const startedAt = this.host.timingStart();
    if (this.process === undefined) {
      // Hot path (one call per event and subscriber): no closure, no allocation.
      this.subscriber.next(event);
      if (startedAt !== undefined) this.host.handled(this.name, startedAt);
      if (initial) this.checkSynced();
      return true;
    }
    const timed = (): void => {
      if (startedAt !== undefined) this.host.handled(this.name, startedAt);
    };
    let out: ObservableInput<R> | void;
    try {
      out = this.process(event);
    } catch (err) {
      this.fail(event, err);
      return false;
    }
    if (out === undefined || out === null) {
      timed();
      if (initial) this.checkSynced();
      return true;
    }
    this.busy = true;
    this.inFlightInitial = initial;
    let sync = true;
    let failed = false;
    // A Promise's value is the handler's result only when there is one: `async (e) => {…}` resolves
    // to undefined, which is "done", not a value to emit.
    const settlesOnly = isPromiseLike(out);
    const sub = from(out).subscribe({
      next: (r) => {
        if (settlesOnly && r === undefined) return;
        this.subscriber.next(r);
      },
      error: (err: unknown) => {
        failed = true;
        this.fail(event, err);
      },
      complete: () => {
        this.busy = false;
        this.inFlightInitial = false;
        this.inner = undefined;
        timed();
        if (initial) this.checkSynced();
        if (!sync) this.drain();
      },
    });
    sync = false;
    if (failed) return false;
    if (this.busy) this.inner = sub;
    return true;
  }

  private fail(event: InformerEvent<T>, cause: unknown): void {
    if (this.closed) return;
    const error = new ListenerError<T>(this.name, event, cause);
    this.close();
    this.host.reportError(error);
    this.subscriber.error(error);
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
