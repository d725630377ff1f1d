import type { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import type { Store } from '../cache/store.js';
import type { ResourceType } from '../api/resource.js';

/**
 * One handler registration on an event source: subscribing to `events$` starts delivery (a late
 * registration first gets the cache as `add`s with `isInInitialList: true`); `synced$` emits
 * `true` once the source has synced AND this registration was handed every initial event (SI-11),
 * which is what a controller waits for before its first reconcile (CR-5).
 */
export interface SourceRegistration<T extends KubeObject = KubeObject> {
  readonly events$: Observable<InformerEvent<T>>;
  readonly synced$: Observable<boolean>;
}

/**
 * What a controller needs of an informer: the resource type it serves, its cache (read-only) and
 * handler registrations. The shared informer satisfies it through an adapter; tests use a fake.
 */
export interface ControllerSource<T extends KubeObject = KubeObject> {
  /** The type of the objects (owner matching reads group and kind; `namespaced` picks request scope). */
  readonly resource: ResourceType;
  /** Name used in errors and logs (e.g. `"v1/ConfigMap"`). */
  readonly name?: string;
  /** The cache: the controller's lister for this type. */
  readonly store: Store<T>;
  /** Opens a handler registration; each call is independent. */
  register(): SourceRegistration<T>;
}

/** A readable name for a source. */
export function sourceName(source: ControllerSource): string {
  return source.name ?? `${source.resource.apiVersion}/${source.resource.kind}`;
}
