/**
 * The `rxkube` entry: what a controller author's code calls. Every name is listed on purpose;
 * internals stay importable by the project's own tests through their paths. Pipeable operators
 * are in `rxkube/operators`; the embedded API server and test doubles in `rxkube/testing`.
 *
 * @module rxkube
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import './api/require-node.js';

// Object shapes and the contracts the layers share.
export type { KubeList, KubeObject, ObjectMeta, OwnerReference, PartialObjectMetadata, UnstructuredObject } from './api/kube-object.js';
export type { ObjectOf, ResolvedResourceType, ResourceType } from './api/resource.js';
export { resources } from './api/builtin-resources.js';
export type { K8s } from './api/k8s.js';
export type { Status, StatusCause, StatusDetails } from './api/status.js';
export type { ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from './api/list-watcher.js';
export { cacheRunnable } from './api/runnable.js';
export type { CacheRunnableOptions, DependencyKey, Runnable, RunnableDeps, RunnableLike, RunnableResult } from './api/runnable.js';
export type { Permission, PermissionVerb } from './api/permission.js';
export { compileLabelSelector, LabelSelectorError } from './api/label-selector.js';
export type { LabelSelectorRequirement, SelectorMatcher, StructuredLabelSelector } from './api/label-selector.js';

// Errors: every error rxkube throws is a RxkubeError with a stable `code` and its `layer`
// (docs/errors.md); option validation errors are ConfigErrors naming the `option`.
export { ConfigError, RxkubeError } from './api/rxkube-error.js';
export type { ErrorLayer } from './api/rxkube-error.js';

// Logging.
export { jsonLogger } from './logging/json-logger.js';
export type { JsonLoggerOptions } from './logging/json-logger.js';
export { textLogger } from './logging/text-logger.js';
export type { TextLoggerOptions } from './logging/text-logger.js';
export { defaultLogger } from './logging/default-logger.js';
export type { DefaultLoggerOptions, LogFormat, LogThreshold } from './logging/default-logger.js';
export { noopLogger } from './logging/noop-logger.js';
export { objectRef } from './logging/object-ref.js';
export type { ObjectRefTarget } from './logging/object-ref.js';
export type { LogFields, Logger, LogLevel } from './logging/logger.js';

// Talking to an API server.
export { KubeClient } from './client/kube-client.js';
export type { KubeConnectionOptions, RequestOptions } from './client/kube-connection.js';
export type { KubeConfigCluster, KubeConfigContext, KubeConfigLike, KubeConfigUser } from './client/kube-config-like.js';
export { InClusterConfigError, KubeConfigError } from './client/kubeconfig-errors.js';
export type { InClusterConfigErrorCode, KubeConfigErrorCode } from './client/kubeconfig-errors.js';
export type { RequestObserver, RequestOutcome } from './client/request-outcome.js';
export type {
  ApplyOptions,
  CallOptions,
  DeleteOptions,
  ObjectClient,
  ObjectClientOptions,
  ObjectListOptions,
  PatchOptions,
  PatchType,
  WriteOptions,
} from './client/object-client.js';
export type { ApplyConfiguration, DeepPartial } from './client/apply-configuration.js';
export type { CreateOrUpdateResult, MutateFn, OperationResult } from './client/create-or-update.js';
export { retryOnConflict } from './client/retry-on-conflict.js';
export type { RetryOnConflictOptions } from './client/retry-on-conflict.js';
export type { RetryPolicy } from './client/retry-policy.js';
export type { Discovery } from './client/discovery.js';
export { UnknownResourceError } from './client/discovery.js';
export { fromClientNode, toClientNode } from './client/client-node-models.js';
export { HttpListWatcher } from './client/http-list-watcher.js';
export type { ListWatchScope } from './client/http-list-watcher.js';
export {
  ApiError,
  isAlreadyExists,
  isConflict,
  isExpired,
  isGone,
  isNotFound,
  isTooManyRequests,
} from './client/api-error.js';
export { isNetworkError, NetworkError } from './client/network-error.js';
export { ResponseDecodeError } from './client/response-decode-error.js';
export { WatchDecodeError } from './client/watch-decode-error.js';
export { draftPatch } from './client/draft-patch.js';
export type { DraftPatch, JsonPatchOperation, Recipe } from './client/draft-patch.js';
export { EditConflictError } from './client/update-with-recipe.js';
export type { EditOptions } from './client/update-with-recipe.js';

// List/watch as an Observable of deltas.
export { listWatch } from './reflector/list-watch.js';
export { reflector } from './reflector/reflector.js';
export type { Reflector } from './reflector/reflector.js';
export type { ListWatchOptions } from './reflector/list-watch-options.js';
export type { ReflectorEvent } from './reflector/reflector-event.js';
export type { BackoffCause, ReflectorNextStep, ReflectorStatus } from './reflector/reflector-status.js';
export type { BackoffOptions } from './reflector/backoff.js';
export { ListTimeoutError } from './reflector/list-pages.js';
export { ReflectorFatalError, WatchStalledError } from './reflector/reflector-errors.js';

// The cache: keys, deltas, stores and indexes.
export {
  deletionHandlingKey,
  metaNamespaceKey,
  splitKey,
} from './cache/keys.js';
export type { KeyFunction, ObjectKey, SplitKey } from './cache/keys.js';
export { DeletedFinalStateUnknown, isDeletedFinalStateUnknown } from './cache/delta.js';
export type { Delta, Deltas, DeltaType, PoppedDeltas } from './cache/delta.js';
export { metaNamespaceIndexFunc, NAMESPACE_INDEX } from './cache/indexer.js';
export type { IndexFunc, Indexers, Store } from './cache/store.js';
export type { InformerEvent } from './cache/informer-event.js';
export type { EventHandlerFuncs } from './cache/event-handler.js';
export type { FifoInput } from './cache/fifo-op.js';
export { freezeObject } from './cache/freeze-object.js';
export type { FreezeMode } from './cache/freeze-object.js';
export { CacheError, IndexFuncError, IndexNotFoundError, KeyError, TransformError } from './cache/errors.js';

// Shared informers and the predicates their events are filtered with.
export { InformerFactory } from './informer/informer-factory.js';
export type { InformerFactoryOptions, InformerRequest, ListWatcherFactory } from './informer/informer-factory.js';
export { sharedInformer } from './informer/shared-informer.js';
export type { InformerListener, InformerSource, SharedInformer, SharedInformerOptions } from './informer/shared-informer.js';
export type { ListenerOptions, ProcessListenerOptions } from './informer/informer-listener.js';
export { lister } from './informer/lister.js';
export type { Lister } from './informer/lister.js';
export type { LabelSelector } from './informer/label-selector.js';
export { waitForCacheSync } from './informer/wait-for-cache-sync.js';
export { informerState } from './informer/state.js';
export type { CacheSnapshot, InformerStateOptions, SnapshotChange } from './informer/state.js';
export type { IndexHandle } from './informer/typed-index.js';
export { joinOn } from './informer/sync-aware.js';
export { eventKey, objectOf } from './informer/event-object.js';
export type { MapChange } from './cache/persistent-map.js';
export type { SyncSource, WaitForCacheSyncOptions } from './informer/wait-for-cache-sync.js';
export { dropManagedFields } from './informer/drop-managed-fields.js';
// Waiting on a cache: for a condition, and for this process's own writes (read-your-writes).
export { until } from './informer/wait.js';
export type { WaitTimeoutError } from './informer/until.js';
export type { CacheSource, WaitOptions } from './informer/until.js';
export type { CachedWrite } from './informer/until-cached.js';
export { InformerConfigError, InformerError, ListenerError } from './informer/informer-errors.js';
export { ListWatchError } from './informer/list-watch-error.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  labelSelectorPredicate,
  not,
  objectPredicate,
  or,
  resourceVersionChanged,
} from './informer/predicates.js';
export type { EventPredicate } from './informer/predicates.js';

// Work queue: requests, results and rate limiters.
export type { Request, WorkQueueAdd, WorkQueueInput } from './workqueue/request.js';
export type { ReconcileReturn, Reconciler, WorkQueueOptions } from './workqueue/work-queue.js';
export type { ReconcileOutcome, ReconcileOutcomeKind, ReconcileResult } from './workqueue/reconcile-result.js';
export type { WorkQueueMetrics } from './workqueue/metrics.js';
export { TerminalError } from './workqueue/terminal-error.js';
export { ReconcileAbortedError } from './workqueue/reconcile-aborted-error.js';
export { ReconcileTimeoutError } from './workqueue/reconcile-timeout-error.js';
export type { RateLimiter } from './workqueue/rate-limiter.js';
export { defaultControllerRateLimiter } from './workqueue/default-rate-limiter.js';
export { exponentialFailureRateLimiter } from './workqueue/exponential-failure-rate-limiter.js';
export type { ExponentialFailureRateLimiterOptions } from './workqueue/exponential-failure-rate-limiter.js';
export { bucketRateLimiter } from './workqueue/bucket-rate-limiter.js';
export type { BucketRateLimiterOptions } from './workqueue/bucket-rate-limiter.js';
export { fastSlowRateLimiter } from './workqueue/fast-slow-rate-limiter.js';
export type { FastSlowRateLimiterOptions } from './workqueue/fast-slow-rate-limiter.js';
export { maxOfRateLimiter } from './workqueue/max-of-rate-limiter.js';
export { withMaxWaitRateLimiter } from './workqueue/with-max-wait-rate-limiter.js';

// Metrics (Prometheus, through prom-client).
export { managerMetrics } from './metrics/metrics-registry.js';
export type { ManagerMetrics } from './metrics/metrics-registry.js';
export { controllerMetrics } from './metrics/controller-metrics.js';
export type { ControllerMetricsRecorder } from './metrics/controller-metrics.js';
export { workqueueMetrics } from './metrics/workqueue-metrics.js';
export type { WorkqueueMetricsProvider } from './metrics/workqueue-metrics.js';
export { reflectorMetrics } from './metrics/reflector-metrics.js';
export type { ReflectorMetricsRecorder } from './metrics/reflector-metrics.js';

// Events.
export { eventRecorder } from './events/event-recorder.js';
export type { EventOptions, EventRecorder, EventRecorderOptions } from './events/event-recorder.js';
export type { ClientEventsApi, ClientEventsApiOptions, EventsApiVersion } from './events/client-events-api.js';
export type { EventsApi } from './events/events-api.js';
export type { CoreEvent, EventType, ObjectReference } from './events/core-event.js';

// Leader election.
export { leaderElection } from './leader-election/leader-election.js';
export type { LeaderElection, LeaderElectionState } from './leader-election/leader-election.js';
export { whileLeading } from './leader-election/while-leading.js';
export { kubeClientLeaseApi } from './leader-election/kube-client-lease-api.js';
export type { LeaseApi, LeaseRef } from './leader-election/lease-api.js';
export type { LeaderElectionRecord, Lease, LeaseSpec } from './leader-election/lease.js';
export { LeaderElectionConfigError } from './leader-election/leader-election-config.js';
export type { LeaderElectionConfig } from './leader-election/leader-election-config.js';
export { LeaderElectionHealthError } from './leader-election/leader-elector.js';

// Controllers.
export { controller } from './controller/controller.js';
export type { Controller, ControllerOptions, ControllerReconciler, ForSpec, OwnsSpec, WatchSpec } from './controller/controller.js';
export type { ClusterTarget } from './controller/controller-options.js';
export type { ShardedController, ShardedControllerOptions, ShardingOptions } from './sharding/sharded-controller.js';
export type { SharderOptions } from './sharding/sharder.js';
export type { ReconcileContext } from './controller/reconcile-context.js';
export { informerSource } from './controller/informer-source.js';
export type { ControllerSource, SourceRegistration } from './controller/controller-source.js';
export type { OwnerRequestOptions, RequestMapper } from './controller/event-requests.js';
export { finalizer, FinalizerConflictError } from './controller/finalizer.js';
// The controller author's toolkit: owner references, status conditions (one object each).
export { ownerRefs } from './controller/owner-references.js';
export type { AlreadyOwnedError } from './controller/owner-references.js';
export type { ClaimDecision, OwnerReferenceOptions } from './controller/owner-references.js';
export { conditions } from './controller/conditions.js';
export type { ControllerExpectations, ExpectationsOptions, PendingExpectations } from './controller/expectations.js';
export type { Condition } from './controller/conditions.js';
export type { FinalizerOptions } from './controller/finalizer.js';
export { indexMapper } from './controller/index-mapper.js';
export { nameIndex, ownerUidIndex, uidIndex } from './controller/indexes.js';
export { noopEventRecorder } from './controller/noop-event-recorder.js';
export { CacheSyncTimeoutError, ControllerBuildError, ControllerError, ControllerStartedTwiceError } from './controller/controller-errors.js';

// The manager.
export { manager } from './manager/manager.js';
export type { HealthServerOptions, Manager, ManagerOptions, MetricsServerOptions } from './manager/manager.js';
export type { Leadership, LeadershipFactory, ManagerLeaderElectionOptions } from './manager/leader-election-options.js';
export { leaseLeadership } from './manager/lease-leadership.js';
export type { LeaseLeadershipOptions } from './manager/lease-leadership.js';
export { httpServerRunnable } from './manager/http-server.js';
export type { HttpServerOptions, HttpServerRunnable } from './manager/http-server.js';
export type { HealthCheck } from './manager/healthz-handler.js';
export { setupSignalHandler } from './manager/signal-handler.js';
export type { SignalHandler, SignalHandlerOptions } from './manager/signal-handler.js';
export {
  CacheSyncError,
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerCacheSyncTimeoutError,
  ManagerConfigError,
} from './manager/manager-errors.js';
export { rbacManifest } from './manager/rbac.js';
export { DEPS } from './manager/deps.js';
export type { PolicyRule, RbacManifestOptions, RbacRules } from './manager/rbac.js';
