/**
 * `rxkube/controller`: controller toolkit extras: indexes, the no-op recorder, the controller's errors.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/controller
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { FinalizerConflictError } from './finalizer.js';
export { nameIndex, ownerUidIndex, uidIndex } from './indexes.js';
export { noopEventRecorder } from './noop-event-recorder.js';
export { CacheSyncTimeoutError, ControllerError, ControllerStartedTwiceError } from './controller-errors.js';
// Fencing and the reconcile's health: writes refused after lost leadership, the reconcile scope,
// the stuck-reconcile threshold.
export { FencedWriteError, fencedClient } from './fenced-client.js';
// Events recorded through a reconcile's context carry the controller's fence (`EventOptions.fence`).
export { fencedRecorder } from './fenced-recorder.js';
export { currentReconcile, inReconcileScope } from './reconcile-scope.js';
export type { ReconcileScope } from './reconcile-scope.js';
export { DEFAULT_STUCK_RECONCILE_THRESHOLD_MS } from './stuck-reconciles.js';
// Typed wiring: a `watches` entry typed by its source.
export { watch } from './watch.js';
export type { OwnsEntry } from './controller-options.js';
// Read-your-writes (on by default, docs/read-your-writes.md): the option's type and defaults, and the timeout error.
export { ReadYourWritesTimeoutError } from './read-your-writes.js';
export { DEFAULT_READ_YOUR_WRITES_TIMEOUT_MS, DEFAULT_MAX_TRACKED_WRITES } from './read-your-writes-options.js';
export type { ReadYourWritesOptions } from './read-your-writes-options.js';
// Clusters that come and go (docs/multi-cluster.md): cluster events, the kubeconfig Secret provider, their errors.
export type { ClusterEvent } from './controller-options.js';
export { clusterSetChanges } from './cluster-set-changes.js';
export type { ClusterSet } from './cluster-set-changes.js';
export { DEFAULT_KUBECONFIG_SECRET_SELECTOR, kubeconfigSecretClusters } from './kubeconfig-secret-clusters.js';
export type { KubeconfigSecretClustersOptions } from './kubeconfig-secret-clusters.js';
export { ClusterEventError, ClusterRemovedError, KubeconfigSecretError } from './cluster-errors.js';
// Runtime change (docs/runtime-change.md): watches that join and leave while a controller runs.
export { crdKinds, crdWatches, servedKind } from './crd-watches.js';
export type { CrdKindsOptions, CrdWatchesOptions } from './crd-watches.js';
export { dynamicWatchKey } from './dynamic-watch-spec.js';
export type { DynamicWatchSpec } from './dynamic-watch-spec.js';
export { MAX_DYNAMIC_WATCHES } from './dynamic-watches.js';
