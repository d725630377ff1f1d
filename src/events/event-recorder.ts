import type { Observable, SchedulerLike } from 'rxjs';
import { EMPTY, Subject, asyncScheduler, catchError, concatMap, defer, switchMap, tap, throwError, timer } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { ApiError, isNotFound } from '../client/api-error.js';
import { KubeClient } from '../client/kube-client.js';
import { clientEventsApi } from './client-events-api.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import type { CoreEvent, EventSource, EventType, ObjectReference } from './core-event.js';
import type { EventCorrelatorOptions } from './event-correlator.js';
import { EventCorrelator } from './event-correlator.js';
import type { EventsApi } from './events-api.js';

/** Options of {@link eventRecorder}. Durations in ms. */
export interface EventRecorderOptions {
  /**
   * Where Events go: a client (events.k8s.io/v1 Events where the server serves them, core/v1
   * otherwise; see `clientEventsApi`), or any {@link EventsApi} (a fake in tests).
   */
  readonly api: EventsApi | KubeClient;
  /** Who reports: `component` (e.g. the controller name) and optional `host`. */
  readonly source: EventSource;
  readonly scheduler?: SchedulerLike;
  readonly logger?: Logger;
  /** Aggregation / spam-filter tuning (client-go defaults). */
  readonly correlator?: EventCorrelatorOptions;
  /** Attempts per event on transport errors. Default 12. */
  readonly maxTries?: number;
  /** Wait between attempts. Default 10 000. */
  readonly retryIntervalMs?: number;
  /** Events waiting to be written beyond this are dropped. Default 1000. */
  readonly maxQueued?: number;
}

/** Optional parts of an event. */
export interface EventOptions {
  /** What was done (or failed), machine-readable (events.k8s.io/v1 `action`); default the reason. */
  readonly action?: string;
  /** A second object the event is about (e.g. the pod a ReplicaSet created). */
  readonly related?: KubeObject | ObjectReference;
}

/**
 * Records Events about objects; writes happen in the background, one at a time, as
 * events.k8s.io/v1 Events (with `series` for repeats) or core/v1 Events, as its `api` writes them.
 */
export interface EventRecorder {
  /** Records an event about `object` (an object with apiVersion/kind/metadata, or a reference). */
  event(object: KubeObject | ObjectReference, type: EventType, reason: string, message: string, options?: EventOptions): void;
  /** As {@link EventRecorder.event} with annotations on the Event. */
  annotatedEvent(
    object: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>>,
    type: EventType,
    reason: string,
    message: string,
  ): void;
  /** Resolves once every event recorded so far was written, dropped or given up. */
  flush(): Promise<void>;
  /** Stops writing; later events are ignored and pending ones abandoned. */
  shutdown(): void;
}

/** Formats a clock value as a Kubernetes `metav1.Time` (RFC 3339, whole seconds). */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function referenceOf(target: KubeObject | ObjectReference): ObjectReference | undefined {
  const meta = (target as KubeObject).metadata;
  if (meta !== undefined && typeof meta === 'object') {
    const o = target as KubeObject;
    return {
      ...(o.apiVersion === undefined ? {} : { apiVersion: o.apiVersion }),
      ...(o.kind === undefined ? {} : { kind: o.kind }),
      ...(meta.namespace === undefined ? {} : { namespace: meta.namespace }),
      ...(meta.name === undefined ? {} : { name: meta.name }),
      ...(meta.uid === undefined ? {} : { uid: meta.uid }),
      ...(meta.resourceVersion === undefined ? {} : { resourceVersion: meta.resourceVersion }),
    };
  }
  const ref = target as ObjectReference;
  return typeof ref.name === 'string' || typeof ref.kind === 'string' ? ref : undefined;
}

function withoutResourceVersion(e: CoreEvent): CoreEvent {
  const { resourceVersion: _rv, ...metadata } = e.metadata;
  return { ...e, metadata };
}

/**
 * An event recorder that behaves like client-go's: each event passes an {@link EventCorrelator}
 * (combining similar events, turning exact repeats into a patch of `count` and `lastTimestamp`,
 * and dropping spam per source+object with a token bucket), then is written through `api`. A patch
 * answered with 404 creates the Event afresh; transport errors are retried `maxTries` times
 * `retryInterval` apart on `scheduler`; API errors are logged and not retried. Events with a type
 * other than Normal/Warning or about an object without kind or name are logged and dropped.
 *
 * @example
 * const recorder = eventRecorder({ api: client, source: { component: 'rs-controller' } });
 * recorder.event(replicaSet, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
 */
export function eventRecorder(options: EventRecorderOptions): EventRecorder {
  const api: EventsApi = options.api instanceof KubeClient ? clientEventsApi(options.api) : options.api;
  if (!options.source.component) throw new TypeError('eventRecorder needs source.component');
  const scheduler = options.scheduler ?? asyncScheduler;
  const logger = options.logger ?? noopLogger;
  const maxTries = options.maxTries ?? 12;
  const retryInterval = options.retryIntervalMs ?? 10_000;
  const maxQueued = options.maxQueued ?? 1000;
  let seq = 0;
  const uniqueName = (objectName: string) => {
    const nanos = BigInt(Math.floor(scheduler.now())) * 1_000_000n + BigInt(seq++ % 1_000_000);
    return `${objectName}.${nanos.toString(16)}`;
  };
  const correlator = new EventCorrelator(scheduler, options.correlator, uniqueName);

  let pending = 0;
  let waiters: (() => void)[] = [];
  let stopped = false;
  const settle = () => {
    if (stopped) return;
    pending--;
    if (pending === 0) {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    }
  };

  const write = (event: CoreEvent): Observable<CoreEvent> =>
    defer(() => {
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
      const attempt = (tries: number): Observable<CoreEvent> =>
        once$.pipe(
          catchError((err: unknown) => {
            if (err instanceof ApiError) {
              logger.error('server rejected event (will not retry)', { reason: event.reason, err });
              return EMPTY;
            }
            if (tries + 1 >= maxTries) {
              logger.error('unable to write event (giving up)', { reason: event.reason, tries: tries + 1, err });
              return EMPTY;
            }
            return timer(retryInterval, scheduler).pipe(switchMap(() => attempt(tries + 1)));
          }),
        );
      return attempt(0).pipe(tap((written) => correlator.updateState(result.key, written)));
    });

  const queue = new Subject<CoreEvent>();
  const subscription = queue
    .pipe(
      concatMap((event) =>
        write(event).pipe(
          catchError(() => EMPTY),
          tap({ finalize: settle }),
        ),
      ),
    )
    .subscribe();

  const record = (
    target: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>> | undefined,
    type: EventType,
    reason: string,
    message: string,
    extra: EventOptions = {},
  ) => {
    if (stopped) return;
    if (type !== 'Normal' && type !== 'Warning') {
      logger.error(`unsupported event type: '${String(type)}'`, { reason });
      return;
    }
    const ref = referenceOf(target);
    if (ref === undefined || !ref.kind || !ref.name) {
      logger.error('could not construct a reference to the object; will not report event', { reason });
      return;
    }
    const related = extra.related === undefined ? undefined : referenceOf(extra.related);
    if (pending >= maxQueued) {
      logger.warn('event queue full; dropping event', { reason, object: ref.name });
      return;
    }
    const now = scheduler.now();
    const t = kubeTime(now);
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: uniqueName(ref.name),
        namespace: ref.namespace || 'default',
        ...(annotations === undefined ? {} : { annotations }),
      },
      involvedObject: ref,
      reason,
      message,
      source: options.source,
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type,
      reportingComponent: options.source.component,
      reportingInstance: options.source.host ?? '',
      ...(extra.action === undefined ? {} : { action: extra.action }),
      ...(related === undefined ? {} : { related }),
    };
    pending++;
    queue.next(event);
  };

  return {
    event: (object, type, reason, message, extra) => record(object, undefined, type, reason, message, extra),
    annotatedEvent: (object, annotations, type, reason, message) => record(object, annotations, type, reason, message),
    flush: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    shutdown() {
      stopped = true;
      subscription.unsubscribe();
      pending = 0;
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
  };
}
