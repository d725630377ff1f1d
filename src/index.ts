/**
 * The `rxkube` front door: what most controller code needs, and nothing else. It reads as a table
 * of contents; every other public name has exactly one door of its own, named after its layer:
 *
 * | entry | what is there |
 * | --- | --- |
 * | `rxkube` | objects and resources, errors, loggers, `KubeClient`, informers and their predicates, `controller`, `manager`, leader election, metrics, events |
 * | `rxkube/operators` | the pipeable operators (DeltaFIFO, indexer, work queue, joins, keyed operators) |
 * | `rxkube/testing` | test doubles that need no API server: fake informers and sources, an in-memory Lease API |
 * | `rxkube/api` | runnables' helpers and label selectors |
 * | `rxkube/client` | every API error class, discovery, the list/watch transport, the connection seam |
 * | `rxkube/reflector` | `listWatch`, `reflector` and their errors |
 * | `rxkube/cache` | keys, deltas, stores, indexes |
 * | `rxkube/informer` | more predicates, informer errors |
 * | `rxkube/workqueue` | rate limiters, reconcile errors |
 * | `rxkube/controller` | indexes, owner mapping, controller errors |
 * | `rxkube/sharding` | `shardedController` and the `sharder`: objects spread over replicas |
 * | `rxkube/manager` | lease leadership, dependency keys, manager errors |
 * | `rxkube/leader-election` | the Lease API on a client, election errors |
 * | `rxkube/metrics` | per-layer Prometheus collectors |
 * | `rxkube/logging` | `objectRef` and friends |
 *
 * The embedded API server, the in-process cluster and `virtualTime` are in the `@rxkube/testkit`
 * package; rxkube-controller-manager's controllers in `@rxkube/controller-manager`; type generation
 * in `@rxkube/codegen`.
 *
 * @module rxkube
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import './api/require-node.js';

// api
export type { Cached, KubeList, KubeObject, ObjectMeta, OwnerReference, PartialObjectMetadata, UnstructuredObject } from './api/kube-object.js';
export type { ObjectOf, ResolvedResourceType, ResourceType } from './api/resource.js';
export { resources } from './api/builtin-resources.js';
export type { K8s } from './api/k8s.js';
export type { Status, StatusCause, StatusDetails } from './api/status.js';
export type { ExpectedObjects, ExpectedObjectType, ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from './api/list-watcher.js';
export { cacheRunnable } from './api/runnable.js';
export type { CacheRunnableOptions, DependencyKey, Runnable, RunnableDeps, RunnableLike, RunnableResult } from './api/runnable.js';
export type { Permission, PermissionVerb } from './api/permission.js';
export { ConfigError, RxkubeError } from './api/rxkube-error.js';
export type { ErrorLayer } from './api/rxkube-error.js';

// logging
export { jsonLogger } from './logging/json-logger.js';
export type { JsonLoggerOptions } from './logging/json-logger.js';
export { textLogger } from './logging/text-logger.js';
export type { TextLoggerOptions } from './logging/text-logger.js';
export { defaultLogger } from './logging/default-logger.js';
export type { DefaultLoggerOptions, LogFormat, LogThreshold } from './logging/default-logger.js';
export { noopLogger } from './logging/noop-logger.js';
export type { LogFields, Logger, LogLevel } from './logging/logger.js';

// client
export { KubeClient } from './client/kube-client.js';
export type { KubeConnectionOptions, RequestOptions } from './client/kube-connection.js';
export type { KubeConfigCluster, KubeConfigContext, KubeConfigUser } from './client/kube-config-entries.js';
export type { KubeConfigLike } from './client/kube-config-like.js';
export { KubeConfigError } from './client/kubeconfig-errors.js';
export type { InClusterConfigErrorCode, KubeConfigErrorCode } from './client/kubeconfig-errors.js';
export type { RequestObserver, RequestOutcome } from './client/request-outcome.js';
export type { ObjectClient } from './client/object-client.js';
export type { ApplyOptions, CallOptions, DeleteOptions, ObjectClientOptions, ObjectListOptions, PatchOptions, PatchType, WriteOptions } from './client/object-client-options.js';
export type { ApplyConfiguration, DeepPartial } from './client/apply-configuration.js';
export type { CreateOrUpdateClient, CreateOrUpdateResult, MutateFn, OperationResult } from './client/create-or-update.js';
export { retryOnConflict } from './client/retry-on-conflict.js';
export type { RetryOnConflictOptions } from './client/retry-on-conflict.js';
export type { RetryPolicy } from './client/retry-policy.js';
export { ApiError, isAlreadyExists, isConflict, isGone, isNotFound } from './client/api-error.js';
export { draftPatch } from './client/draft-patch.js';
export type { DraftPatch, JsonPatchOperation, Recipe } from './client/draft-patch.js';

// reflector
export type { ListWatchOptions } from './reflector/list-watch-options.js';
export type { ReflectorEvent } from './reflector/reflector-event.js';
export type { BackoffCause, ReflectorNextStep, ReflectorStatus } from './reflector/reflector-status.js';
export type { BackoffOptions } from './reflector/backoff.js';

// cache
export { metaNamespaceKey } from './cache/keys.js';
export type { KeyFunction, ObjectKey, SplitKey } from './cache/keys.js';
export type { IndexFunc, Indexers, Store } from './cache/store.js';
export type { InformerEvent } from './cache/informer-event.js';
export type { EventHandlerFuncs } from './cache/event-handler.js';
export type { FifoInput } from './cache/fifo-op.js';

// informer
export { InformerFactory } from './informer/informer-factory.js';
export type { InformerFactoryOptions, InformerRequest, ListWatcherFactory } from './informer/informer-factory.js';
export { sharedInformer } from './informer/shared-informer.js';
export type { InformerListener } from './informer/informer-listener.js';
export type { SharedInformer } from './informer/shared-informer-interface.js';
export type { InformerSource, SharedInformerOptions } from './informer/shared-informer-options.js';
export type { ListenerOptions, ProcessListenerOptions } from './informer/informer-listener.js';
export { lister } from './informer/lister.js';
export type { Lister } from './informer/lister.js';
export type { LabelSelector } from './informer/label-selector.js';
export { waitForCacheSync } from './informer/wait-for-cache-sync.js';
export type { SyncSource, WaitForCacheSyncOptions } from './informer/wait-for-cache-sync.js';
export { informerState } from './informer/state.js';
export type { CacheSnapshot, InformerStateOptions, SnapshotChange } from './informer/state.js';
export type { IndexHandle } from './informer/typed-index.js';
export { joinOn } from './informer/sync-aware.js';
export { eventKey, objectOf } from './informer/event-object.js';

// cache
export type { MapChange } from './cache/persistent-map.js';

// informer
export { until } from './informer/wait.js';
export type { WaitTimeoutError, CacheSource, WaitOptions } from './informer/until.js';
export type { CachedWrite } from './informer/until-cached.js';
export { and, generationChanged, labelsChanged, not, or } from './informer/predicates.js';
export type { EventPredicate } from './informer/predicates.js';

// workqueue
export type { Request, WorkQueueAdd, WorkQueueInput } from './workqueue/request.js';
export type { ReconcileReturn, Reconciler } from './workqueue/reconciler.js';
export type { WorkQueueOptions } from './workqueue/work-queue-options.js';
export type { ReconcileOutcome, ReconcileOutcomeKind, ReconcileResult } from './workqueue/reconcile-result.js';
export type { WorkQueueMetrics } from './workqueue/metrics.js';
export { TerminalError } from './workqueue/terminal-error.js';
export type { RateLimiter } from './workqueue/rate-limiter.js';
export { defaultControllerRateLimiter } from './workqueue/default-rate-limiter.js';

// metrics
export { managerMetrics } from './metrics/metrics-registry.js';
export type { ManagerMetrics } from './metrics/metrics-registry.js';

// events
export { eventRecorder } from './events/event-recorder.js';
export type { EventOptions, EventRecorder, EventRecorderOptions } from './events/event-recorder.js';
export type { ClientEventsApi, ClientEventsApiOptions, EventsApiVersion } from './events/client-events-api.js';
export type { EventsApi } from './events/events-api.js';
export type { CoreEvent, EventType, ObjectReference } from './events/core-event.js';

// leader-election
export { leaderElection } from './leader-election/leader-election.js';
export type { LeaderElection } from './leader-election/leader-election.js';
export type { LeaderElectionState } from './leader-election/leader-election-state.js';
export { whileLeading } from './leader-election/while-leading.js';
export type { LeaseApi, LeaseRef } from './leader-election/lease-api.js';
export type { LeaderElectionRecord, Lease, LeaseSpec } from './leader-election/lease.js';

// controller
export { controller } from './controller/controller.js';
export type { Controller, ControllerOptions, ControllerReconciler, ForSpec, OwnsSpec, WatchSpec } from './controller/controller.js';
export type { ClusterTarget } from './controller/controller-options.js';
export type { ReconcileContext } from './controller/reconcile-context.js';
export { informerSource } from './controller/informer-source.js';
export type { ControllerSource, SourceRegistration } from './controller/controller-source.js';
export type { OwnerRequestOptions, RequestMapper } from './controller/event-requests.js';
export { finalizer } from './controller/finalizer.js';
export type { FinalizerOptions } from './controller/finalizer.js';
export { ownerRefs } from './controller/owner-references.js';
export type { AlreadyOwnedError, ClaimDecision, OwnerReferenceOptions } from './controller/owner-references.js';
export { conditions } from './controller/conditions.js';
export type { Condition } from './controller/conditions.js';
export type { ControllerExpectations, ExpectationsOptions, PendingExpectations } from './controller/expectations.js';
export { indexMapper } from './controller/index-mapper.js';
export { ControllerBuildError } from './controller/controller-errors.js';

// manager
export { manager } from './manager/manager.js';
export type { HealthServerOptions, Manager, ManagerOptions, MetricsServerOptions } from './manager/manager.js';
export type { Leadership, LeadershipFactory, ManagerLeaderElectionOptions } from './manager/leader-election-options.js';
export { httpServerRunnable } from './manager/http-server.js';
export type { HttpServerOptions, HttpServerRunnable } from './manager/http-server.js';
export type { HealthCheck } from './manager/healthz-handler.js';
export { setupSignalHandler } from './manager/signal-handler.js';
export type { SignalHandler, SignalHandlerOptions } from './manager/signal-handler.js';
export { rbacManifest } from './manager/rbac.js';
export type { PolicyRule, RbacManifestOptions, RbacRules } from './manager/rbac.js';
