import type { KubeObject, ObjectMeta } from '../api/kube-object.js';

/** `Normal` or `Warning`, the only types the API accepts for core/v1 Events. */
export type EventType = 'Normal' | 'Warning';

/** `source` of a core/v1 Event: the reporting component and host. */
export interface EventSource {
  readonly component: string;
  readonly host?: string;
}

/** A core/v1 `ObjectReference` to the object an event is about. */
export interface ObjectReference {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly fieldPath?: string;
}

/** A core/v1 Event (the fields the recorder writes). Timestamps are RFC 3339 strings. */
export interface CoreEvent extends KubeObject {
  readonly apiVersion?: 'v1';
  readonly kind?: 'Event';
  readonly metadata: ObjectMeta & { readonly name: string; readonly namespace: string };
  readonly involvedObject: ObjectReference;
  readonly reason: string;
  readonly message: string;
  readonly source: EventSource;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly count: number;
  readonly type: EventType;
  readonly reportingComponent?: string;
  readonly reportingInstance?: string;
  /** What was done (or failed) to the object; events.k8s.io/v1 requires one (the reason when unset). */
  readonly action?: string;
  /** A second object the event is about (e.g. the pod a ReplicaSet created). */
  readonly related?: ObjectReference;
}

/** The patch sent for a repeated event: new count, lastTimestamp and message. */
export interface EventPatch {
  readonly count: number;
  readonly lastTimestamp: string;
  readonly message: string;
}
