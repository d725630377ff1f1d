import type { EventsV1Event } from '../api/builtin-types.js';
import type { CoreEvent, EventPatch, EventType } from './core-event.js';

/** `2026-01-01T00:00:00Z` (metav1.Time) as `2026-01-01T00:00:00.000000Z` (metav1.MicroTime, as events.k8s.io/v1 wants). */
export function microTime(time: string): string {
  const ms = Date.parse(time);
  if (Number.isNaN(ms)) return time;
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** A MicroTime as a whole-second metav1.Time. */
function secondsOf(time: string | undefined): string | undefined {
  if (time === undefined) return undefined;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? time : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The events.k8s.io/v1 form of a recorder's event: `regarding` for `involvedObject`, `note` for
 * `message`, `eventTime` (MicroTime) for `firstTimestamp`, `reportingController` /
 * `reportingInstance` (both required) from the reporting component or source, `action` (required)
 * defaulting to the reason, and a `series` (count, lastObservedTime) once it repeated. The
 * deprecated core fields stay unset, as the v1 API requires of new Events.
 */
export function toEventsV1(event: CoreEvent): EventsV1Event {
  const controller = event.reportingComponent || event.source.component;
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: {
      name: event.metadata.name,
      namespace: event.metadata.namespace,
      ...(event.metadata.annotations === undefined ? {} : { annotations: { ...event.metadata.annotations } }),
    },
    eventTime: microTime(event.firstTimestamp),
    ...(event.count > 1 ? { series: { count: event.count, lastObservedTime: microTime(event.lastTimestamp) } } : {}),
    reportingController: controller,
    reportingInstance: event.reportingInstance || event.source.host || controller,
    action: event.action || event.reason,
    reason: event.reason,
    regarding: { ...event.involvedObject },
    ...(event.related === undefined ? {} : { related: { ...event.related } }),
    note: event.message,
    type: event.type,
  };
}

/** The series patch of a repeated event (events.k8s.io/v1 Events are immutable but for `series`). */
export function seriesPatch(patch: EventPatch): { series: { count: number; lastObservedTime: string } } {
  return { series: { count: patch.count, lastObservedTime: microTime(patch.lastTimestamp) } };
}

/** The recorder's view (core/v1 shape) of an events.k8s.io/v1 Event the server answered. */
export function fromEventsV1(event: EventsV1Event): CoreEvent {
  const first = secondsOf(event.deprecatedFirstTimestamp ?? event.eventTime) ?? '';
  const last = secondsOf(event.series?.lastObservedTime ?? event.deprecatedLastTimestamp) ?? first;
  const meta = event.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: meta.name ?? '',
      namespace: meta.namespace ?? '',
      ...(meta.resourceVersion === undefined ? {} : { resourceVersion: meta.resourceVersion }),
      ...(meta.uid === undefined ? {} : { uid: meta.uid }),
    },
    involvedObject: { ...(event.regarding ?? {}) },
    reason: event.reason ?? '',
    message: event.note ?? '',
    source: { component: event.reportingController ?? '', ...(event.reportingInstance ? { host: event.reportingInstance } : {}) },
    firstTimestamp: first,
    lastTimestamp: last,
    count: event.series?.count ?? event.deprecatedCount ?? 1,
    type: (event.type === 'Warning' ? 'Warning' : 'Normal') as EventType,
    ...(event.reportingController === undefined ? {} : { reportingComponent: event.reportingController }),
    ...(event.reportingInstance === undefined ? {} : { reportingInstance: event.reportingInstance }),
    ...(event.action === undefined ? {} : { action: event.action }),
    ...(event.related === undefined ? {} : { related: { ...event.related } }),
  };
}
