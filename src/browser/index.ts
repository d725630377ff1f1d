/**
 * `rxkube/browser`: rxkube in a browser (or any runtime with `fetch`): `fetchClient`, a client
 * over `fetch` and web streams, and what a dashboard builds on it — the informer factory, shared
 * informers, `informerState`, listers, predicates, joins, object clients and their errors. Its
 * module graph imports nothing of Node.js (no `node:*`, no `@kubernetes/client-node`, no
 * `Buffer`); the pipeable operators come from `rxkube/operators`, which is browser-safe too.
 *
 * A subset door: besides its own names (the fetch transport) it re-exports, unchanged, names whose
 * home is another door (`rxkube`, `rxkube/client`), so that a browser bundle never has to import
 * those doors (they pull in Node.js-only modules). One re-export is a type of the same shape rather
 * than the same declaration: `KubeClient` here is the client's instance type (`KubeClientBase`),
 * since `rxkube`'s `KubeClient` class declares Node.js types in its static factories. Its type
 * declarations reach no Node.js type either: a browser project (`"types": []`, DOM library,
 * `skipLibCheck: false`) type-checks them without `@types/node`.
 *
 * ```ts
 * import { fetchClient, InformerFactory, informerState } from 'rxkube/browser';
 *
 * const client = fetchClient({ server: '/k8s' });         // e.g. `kubectl proxy --api-prefix=/k8s` behind the page's origin
 * const pods = new InformerFactory(client, { namespace: 'default' }).pods();
 * informerState(pods).subscribe((snapshot) => render([...snapshot.values()]));
 * ```
 *
 * @module rxkube/browser
 */

// First: the Node.js version check (a no-op outside Node.js).
import '../api/require-node.js';

// The fetch transport (this door's own names).
export { fetchClient } from '../client/fetch-client.js';
export type { FetchClientOptions } from '../client/fetch-client.js';
export { FetchConnection } from '../client/fetch-connection.js';
export type { FetchConnectionOptions, FetchFunction, TokenProvider } from '../client/fetch-connection.js';
export { FetchConfigError } from '../client/fetch-config-error.js';
export { KubeClientBase } from '../client/kube-client-base.js';
export type { ApiConnection } from '../client/api-connection.js';

// Re-exported from `rxkube`: objects, resources, errors.
export type { KubeList, KubeObject, ObjectMeta, OwnerReference, PartialObjectMetadata, UnstructuredObject } from '../api/kube-object.js';
export type { ObjectOf, ResolvedResourceType, ResourceType } from '../api/resource.js';
export { resources } from '../api/builtin-resources.js';
export type { K8s } from '../api/k8s.js';
export type { Status } from '../api/status.js';
export type { ListWatcher, WatchEvent } from '../api/list-watcher.js';
export { RxkubeError } from '../api/rxkube-error.js';
export { ApiError, isAlreadyExists, isConflict, isGone, isNotFound } from '../client/api-error.js';
// `KubeClient` as a type: the instance type of the client (`KubeClient`'s own instance type, which
// adds only static factories to `KubeClientBase`). Not `KubeClient`'s module: its factories take
// Node.js types (TLS agent options), which a browser project's type check cannot load.
export type { KubeClientBase as KubeClient } from '../client/kube-client-base.js';
export type { ObjectClient } from '../client/object-client.js';
export type { CallOptions, ObjectClientOptions, ObjectListOptions, PatchOptions, WriteOptions } from '../client/object-client-options.js';
export type { RequestObserver, RequestOutcome } from '../client/request-outcome.js';
export type { RetryPolicy } from '../client/retry-policy.js';
export { retryOnConflict } from '../client/retry-on-conflict.js';

// Re-exported from `rxkube/client`: transport errors.
export { isNetworkError, NetworkError } from '../client/network-error.js';
export { RequestTimeoutError } from '../client/request-timeout-error.js';

// Re-exported from `rxkube`: informers, their state and helpers.
export type { ListWatchOptions } from '../reflector/list-watch-options.js';
export type { ReflectorStatus } from '../reflector/reflector-status.js';
export { metaNamespaceKey } from '../cache/keys.js';
export type { ObjectKey } from '../cache/keys.js';
export type { Indexers, Store } from '../cache/store.js';
export type { InformerEvent } from '../cache/informer-event.js';
export { InformerFactory } from '../informer/informer-factory.js';
export type { InformerFactoryOptions, InformerRequest } from '../informer/informer-factory.js';
export { sharedInformer } from '../informer/shared-informer.js';
export type { SharedInformer } from '../informer/shared-informer-interface.js';
export type { SharedInformerOptions } from '../informer/shared-informer-options.js';
export { lister } from '../informer/lister.js';
export type { Lister } from '../informer/lister.js';
export { waitForCacheSync } from '../informer/wait-for-cache-sync.js';
export { informerState } from '../informer/state.js';
export type { CacheSnapshot, InformerStateOptions, SnapshotChange } from '../informer/state.js';
export type { MapChange } from '../cache/persistent-map.js';
export { joinOn } from '../informer/sync-aware.js';
export { eventKey, objectOf } from '../informer/event-object.js';
export { until } from '../informer/wait.js';
export { and, generationChanged, labelsChanged, not, or } from '../informer/predicates.js';
export type { EventPredicate } from '../informer/predicates.js';
