/**
 * The ReplicaSet controller of kube-controller-manager (`ReplicaSetController.syncReplicaSet`)
 * as an rxkube controller. For each ReplicaSet it:
 * 1. reads the ReplicaSet and the pods of its namespace from the shared informers' caches;
 * 2. claims the active pods (adopts matching orphans, releases owned pods that stopped matching);
 * 3. if its own earlier creates and deletes are all visible in the cache (expectations), creates
 *    or deletes pods toward `spec.replicas`, at most `burstReplicas` per sync;
 * 4. writes `status` through the status subresource;
 * 5. asks to come back after `minReadySeconds` when pods are ready but not yet available.
 * Pod events wake the ReplicaSet that controls the pod (`owns`), or every ReplicaSet whose selector
 * matches an orphan pod (`watches`); they lower the controller's expectations (`ctx.expectations`)
 * on the way, before they become requests.
 *
 * The project's one ReplicaSet controller, written against rxkube's public entry only:
 * rxkube-controller-manager runs it (`replicaset`), and the `npm run example` program
 * (examples/replicaset-controller) runs it under its own manager, printing a trace from `onSync`.
 */
import { compileLabelSelector } from 'rxkube/api';
import { controller, informerSource, type Controller, type EventRecorder, type InformerFactory, type KubeClient, type Logger, type PendingExpectations, type ReconcileContext, type ReconcileResult, type Request } from 'rxkube';
import type { Registry } from 'prom-client';
import type { SchedulerLike } from 'rxjs';
import { claimPods } from './adoption.js';
import { createPods, deletePods, type PodChanges } from './pod-control.js';
import { calculateStatus, updateStatus } from './status.js';
import { controllerRef, isActive, PODS, REPLICA_SETS, type Pod, type ReplicaSet, type ReplicaSetStatus } from './types.js';

/** What one sync of a ReplicaSet did: handed to {@link ReplicaSetControllerOptions.onSync}. */
export interface ReplicaSetSyncReport {
  /** The ReplicaSet's `namespace/name`. */
  readonly key: string;
  /** `gone`: the ReplicaSet was deleted; `waiting`: earlier writes not yet seen, so no sizing. */
  readonly kind: 'synced' | 'waiting' | 'gone' | 'error';
  readonly durationMs: number;
  /** `spec.replicas`. */
  readonly want?: number;
  /** The status computed from the pods it claimed. */
  readonly status?: ReplicaSetStatus;
  /** The pods it created (and in which slow-start batches) or deleted. */
  readonly changes?: PodChanges;
  /** Names of the orphan pods it adopted. */
  readonly adopted?: readonly string[];
  /** Names of the pods it released (their labels stopped matching). */
  readonly released?: readonly string[];
  /** Its own creates and deletes the cache had not shown yet when the sync started (`waiting`). */
  readonly pending?: PendingExpectations;
  /** Whether it wrote the status (only when it changed). */
  readonly statusWritten?: boolean;
  /** Set when it asked to come back after `minReadySeconds` (ms). */
  readonly requeueAfter?: number;
  /** What failed (`error`); the request is retried with backoff. */
  readonly error?: unknown;
}

/** Options of {@link replicaSetController}. */
export interface ReplicaSetControllerOptions {
  /** Where the ReplicaSet and pod informers come from (their scope is the controller's). */
  readonly informers: InformerFactory;
  readonly client: KubeClient;
  /** At most this many creates or deletes per sync; kube-controller-manager uses 500. */
  readonly burstReplicas?: number;
  /** Concurrent syncs of distinct ReplicaSets; kube-controller-manager's default is 5. */
  readonly concurrency?: number;
  /** Records `SuccessfulCreate` / `SuccessfulDelete` Events; default the manager's, reporting as the controller's name. */
  readonly recorder?: EventRecorder;
  /** Default the manager's logger. */
  readonly logger?: Logger;
  /** Default the manager's registry. */
  readonly metricsRegistry?: Registry;
  /** Wall clock for availability (ms); default `Date.now`. */
  readonly now?: () => number;
  /**
   * Called after every sync (also a failed one, before it is retried) with what the sync did: the
   * hook for a trace or a test. It runs inside the reconcile: keep it quick, and do not throw.
   */
  readonly onSync?: (report: ReplicaSetSyncReport) => void;
  /** Controller name (logs, metrics, field manager); default `replicaset`. */
  readonly name?: string;
  /** Scheduler of the controller's queue (requeues after `minReadySeconds`) and of its expectations' clock. */
  readonly scheduler?: SchedulerLike;
}

/** Index of the pod cache: pods by namespace. */
export const BY_NAMESPACE = 'namespace';

/**
 * Builds the controller; add it to a manager with the informer factory's runnable. It declares
 * its writes (`permissions`), so the manager's `rbac()` derives the rules it needs. Like the
 * other controllers of rxkube-controller-manager it skips the name check: a process may build it
 * more than once (several managers in tests, or once more only to derive RBAC).
 */
export function replicaSetController(options: ReplicaSetControllerOptions): Controller<ReplicaSet> {
  const now = options.now ?? Date.now;
  const burst = options.burstReplicas ?? 500;
  const replicaSets = informerSource(options.informers.replicaSets());
  const podInformer = options.informers.pods({ indexers: { [BY_NAMESPACE]: (p) => [p.metadata?.namespace ?? ''] } });
  const pods = informerSource(podInformer);

  /** Orphan pods wake every ReplicaSet in their namespace whose selector matches them. */
  const matchingReplicaSets = (pod: Pod): Request[] =>
    controllerRef(pod) !== undefined
      ? []
      : replicaSets.store
          .list()
          .filter((rs) => rs.metadata?.namespace === pod.metadata?.namespace && selects(rs, pod))
          .map((rs) => ({ namespace: rs.metadata?.namespace ?? '', name: rs.metadata?.name ?? '' }));

  const sync = async (request: Request, ctx: ReconcileContext<ReplicaSet>): Promise<Omit<ReplicaSetSyncReport, 'durationMs'> & { result?: ReconcileResult }> => {
    const key = `${request.namespace ?? ''}/${request.name}`;
    // The controller's expectations of its own writes; pod events (owns) lower them.
    const expectations = ctx.expectations;
    const rs = ctx.object;
    if (rs === undefined) {
      expectations.forget(key);
      return { key, kind: 'gone' };
    }
    // 1. read from the caches
    const needsSync = expectations.satisfied(key);
    const pending = expectations.pending(key);
    const want = rs.spec?.replicas ?? 1;
    const podClient = ctx.objects(PODS, request.namespace);
    const active = podInformer.store.byIndex(BY_NAMESPACE, request.namespace ?? '').filter(isActive);
    // 2. claim: adopt matching orphans, release owned pods that stopped matching
    const claim = await claimPods(rs, active, {
      matches: matcher(rs),
      pods: podClient,
      replicaSets: ctx.objects(),
      signal: ctx.signal,
    });

    // 3. size toward spec.replicas, only when the cache shows every earlier create and delete
    let changes: PodChanges | undefined;
    if (needsSync && rs.metadata?.deletionTimestamp === undefined) {
      const diff = claim.owned.length - want;
      if (diff < 0) changes = await createPods(rs, Math.min(-diff, burst), podClient, expectations, ctx.recorder, ctx.signal);
      else if (diff > 0) changes = await deletePods(rs, claim.owned, Math.min(diff, burst), podClient, expectations, ctx.recorder, ctx.signal);
    }

    // 4. status, through the /status subresource
    const status = calculateStatus(rs, claim.owned, now());
    const statusWritten = await updateStatus(rs, status, (recipe) => ctx.editStatus(recipe));
    const report = {
      key,
      kind: needsSync ? 'synced' : 'waiting',
      want,
      status,
      adopted: claim.adopted,
      released: claim.released,
      statusWritten,
      ...(changes === undefined ? {} : { changes }),
      ...(pending === undefined ? {} : { pending }),
    } as const;
    const failure = changes?.errors[0];
    if (failure !== undefined) throw failure;
    // 5. pods ready but not yet available: look again once minReadySeconds have passed
    const minReady = rs.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.readyReplicas === want && status.availableReplicas !== want) {
      return { ...report, requeueAfter: minReady * 1000, result: { requeueAfter: minReady * 1000 } };
    }
    return report;
  };

  return controller<ReplicaSet>({
    name: options.name ?? 'replicaset',
    skipNameValidation: true,
    for: replicaSets,
    owns: [pods],
    watches: [{ source: pods, map: (pod) => matchingReplicaSets(pod as Pod) }],
    client: options.client,
    concurrency: options.concurrency ?? 5,
    // Its expectations hold a sync back until the pod cache shows its creates and deletes, as in
    // kube-controller-manager; rxkube's read-your-writes gate would do that job first.
    readYourWrites: false,
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    // What the sync does on the API server besides reading the caches: the manager's RBAC rules
    // (`mgr.rbac()`, `--print-rbac`) are derived from this, so it must list every write.
    permissions: [
      { resource: PODS, verbs: ['create', 'delete', 'patch'] }, // createPods, deletePods, claimPods
      { resource: REPLICA_SETS, verbs: ['get'] }, // the fresh read before adopting
      { resource: REPLICA_SETS, subresource: 'status', verbs: ['patch'] }, // updateStatus
    ],
    ...(options.recorder === undefined ? {} : { recorder: options.recorder }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.metricsRegistry === undefined ? {} : { metricsRegistry: options.metricsRegistry }),
    reconcile: async (request, ctx) => {
      const started = performance.now();
      const key = `${request.namespace ?? ''}/${request.name}`;
      try {
        const { result, ...report } = await sync(request, ctx);
        options.onSync?.({ ...report, durationMs: performance.now() - started });
        return result;
      } catch (error) {
        options.onSync?.({ key, kind: 'error', error, durationMs: performance.now() - started });
        throw error;
      }
    },
  });
}

function matcher(rs: ReplicaSet): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  const selector = rs.spec?.selector;
  // An empty selector would match every pod; kube-apiserver refuses it, and so does this controller.
  if (selector === undefined || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) {
    return () => false;
  }
  return compileLabelSelector(selector);
}

function selects(rs: ReplicaSet, pod: Pod): boolean {
  return matcher(rs)(pod.metadata?.labels);
}

