import { type SchedulerLike, asyncScheduler } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { KubeClientBase } from '../client/kube-client-base.js';
import type { KubeClient } from '../client/kube-client.js';
import { clientEventsApi } from './client-events-api.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import type { EventRecorderMetrics } from '../metrics/event-recorder-metrics.js';
import type { EventSource, EventType, ObjectReference } from './core-event.js';
import type { EventCorrelatorOptions } from './event-correlator.js';
import { EventCorrelator } from './event-correlator.js';
import type { EventsApi } from './events-api.js';
import { EventWriter } from './event-writer.js';

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
  /** Where events not sent because their fence aborted are counted (see {@link EventOptions.fence}). */
  readonly metrics?: EventRecorderMetrics;
}

/** Optional parts of an event. */
export interface EventOptions {
  /** What was done (or failed), machine-readable (events.k8s.io/v1 `action`); default the reason. */
  readonly action?: string;
  /** A second object the event is about (e.g. the pod a ReplicaSet created). */
  readonly related?: KubeObject | ObjectReference;
  /**
   * The right to write this event: once this signal has aborted, the event is not sent. Recorded
   * after the abort, it is refused; still waiting (or between retries, or on the wire) when it
   * aborts, it is dropped. `eventRecorder` counts both in its `metrics` and logs the drop once per
   * signal with the count. The recorder a controller hands its reconciles (`ctx.recorder`, see
   * `fencedRecorder`) sets it to the controller's fence, which aborts when leadership is lost.
   * A recorder of your own (implementing {@link EventRecorder}) must honour it itself.
   */
  readonly fence?: AbortSignal;
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
    options?: EventOptions,
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

/**
 * An event recorder that behaves like client-go's: each event passes an {@link EventCorrelator}
 * (combining similar events, turning exact repeats into a patch of `count` and `lastTimestamp`,
 * and dropping spam per source+object with a token bucket), then is written through `api`. A patch
 * answered with 404 creates the Event afresh; transport errors are retried `maxTries` times
 * `retryInterval` apart on `scheduler`; API errors are logged and not retried. Events with a type
 * other than Normal/Warning or about an object without kind or name are logged and dropped.
 * An event given a `fence` ({@link EventOptions.fence}) is not sent once that signal aborted.
 *
 * @example
 * const recorder = eventRecorder({ api: client, source: { component: 'rs-controller' } });
 * recorder.event(replicaSet, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name ?? ''}`);
 */
export function eventRecorder(options: EventRecorderOptions): EventRecorder {
  const api: EventsApi = options.api instanceof KubeClientBase ? clientEventsApi(options.api) : options.api;
  if (!options.source.component) throw new TypeError('eventRecorder needs source.component');
  const scheduler = options.scheduler ?? asyncScheduler;
  const logger = options.logger ?? noopLogger;
  const maxQueued = options.maxQueued ?? 1000;
  const { component } = options.source;
  const metrics = options.metrics;
  metrics?.fenced(component, 0);
  let seq = 0;
  const uniqueName = (objectName: string) => {
    const nanos = BigInt(Math.floor(scheduler.now())) * 1_000_000n + BigInt(seq++ % 1_000_000);
    return `${objectName}.${nanos.toString(16)}`;
  };
  const writer = new EventWriter({
    api,
    correlator: new EventCorrelator(scheduler, options.correlator, uniqueName),
    scheduler,
    logger,
    maxTries: options.maxTries ?? 12,
    retryIntervalMs: options.retryIntervalMs ?? 10_000,
    fenced: (dropped) => metrics?.fenced(component, dropped),
  });

  const record = (
    target: KubeObject | ObjectReference,
    annotations: Readonly<Record<string, string>> | undefined,
    type: EventType,
    reason: string,
    message: string,
    extra: EventOptions = {},
  ) => {
    if (!writer.isWriting) return;
    if (extra.fence?.aborted === true) {
      logger.debug('event not sent: the right to write was lost (fenced)', { reason });
      metrics?.fenced(component, 1);
      return;
    }
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
    if (writer.pending >= maxQueued) {
      logger.warn('event queue full; dropping event', { reason, object: ref.name });
      return;
    }
    const t = kubeTime(scheduler.now());
    writer.enqueue({
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
    }, extra.fence);
  };

  return {
    event: (object, type, reason, message, extra) => record(object, undefined, type, reason, message, extra),
    annotatedEvent: (object, annotations, type, reason, message, extra) => record(object, annotations, type, reason, message, extra),
    flush: () => writer.flush(),
    shutdown: () => writer.stop(),
  };
}
