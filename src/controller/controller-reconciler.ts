import { randomUUID } from 'node:crypto';
import { finalize, isObservable, Observable } from 'rxjs';
import type { Cached, KubeObject } from '../api/kube-object.js';
import type { Store } from '../cache/store.js';
import type { ObjectClient } from '../client/object-client.js';
import type { ResourceType } from '../api/resource.js';
import type { UnstructuredObject } from '../api/kube-object.js';
import { reconcileLogger } from '../logging/reconcile-logger.js';
import type { ReconcileResult } from '../workqueue/reconcile-result.js';
import { requestKey, type Request } from '../workqueue/request.js';
import type { ReconcileReturn, Reconciler } from '../workqueue/reconciler.js';
import type { ControllerDefinition } from './controller-definition.js';
import { ControllerError } from './controller-errors.js';
import type { ControllerSource } from './controller-source.js';
import type { ReconcileContext } from './reconcile-context.js';
import { withEdits } from './context-edits.js';
import { fencedClient } from './fenced-client.js';
import { inReconcileScope, type ReconcileScope } from './reconcile-scope.js';
import type { GatedObject } from './read-your-writes.js';
import { writeTrackingClient } from './write-tracking-client.js';

/**
 * The work queue's reconciler for a controller: calls `reconcile(request, ctx)` with a fresh
 * {@link ReconcileContext}, and counts the call as an active worker until its result settles.
 */
export function controllerReconciler<T extends KubeObject>(def: ControllerDefinition<T>): Reconciler {
  const reconcileNow = startReconcile(def);
  const ryw = def.readYourWrites;
  if (ryw === undefined) return reconcileNow;
  // Read-your-writes: a key parked by `controllerParking` runs once its caches show its writes; a
  // write past its deadline fails the reconcile with ReadYourWritesTimeoutError (requeued).
  return (request, signal) => {
    const late = ryw.timedOut(requestKey(request), gatedObject(def, request));
    if (late !== undefined) throw late;
    return reconcileNow(request, signal);
  };
}

/**
 * The work queue's `park` for a controller with read-your-writes: a key whose own object, or
 * whose earlier reconciles' writes, the caches do not show yet is parked (holding no worker)
 * until they do or the first of them passes its deadline. Undefined when read-your-writes is off.
 */
export function controllerParking<T extends KubeObject>(def: ControllerDefinition<T>): ((request: Request, key: string) => Observable<void> | undefined) | undefined {
  const ryw = def.readYourWrites;
  if (ryw === undefined) return undefined;
  return (request, key) => ryw.parkUntil(key, gatedObject(def, request));
}

/** The request's own object as read-your-writes checks it. */
function gatedObject<T extends KubeObject>(def: ControllerDefinition<T>, request: Request): GatedObject {
  const cluster = request.cluster === undefined ? undefined : def.clusters?.get(request.cluster);
  return {
    type: def.forType,
    key: request.namespace ? `${request.namespace}/${request.name}` : request.name,
    cluster: request.cluster,
    store: cluster === undefined ? def.forStore : cluster.forStore,
  };
}

/** Calls the reconcile at once, with a fresh context. */
function startReconcile<T extends KubeObject>(def: ControllerDefinition<T>): Reconciler {
  const { metrics, name } = def;
  return (request, signal) => {
    const ctx = reconcileContext(def, request, signal);
    metrics?.workerStarted(name);
    const key = requestKey(request);
    const scope: ReconcileScope = { controller: name, key, reconcileId: ctx.reconcileId };
    const settled = def.stuck.track(key, ctx.reconcileId, {
      logger: ctx.logger,
      ...(metrics?.stuckReconciles === undefined ? {} : { count: (n: number) => metrics.stuckReconciles?.(name, n) }),
    });
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      settled();
      metrics?.workerStopped(name);
    };
    let ret: ReconcileReturn;
    try {
      // In its scope: an error escaping later from a timer or continuation it started names it.
      ret = inReconcileScope(scope, () => def.reconcile(request, ctx));
    } catch (error) {
      stop();
      throw error;
    }
    if (isObservable(ret)) {
      const reconcile$ = ret;
      return new Observable<ReconcileResult | void | undefined>((subscriber) => inReconcileScope(scope, () => reconcile$.subscribe(subscriber))).pipe(finalize(stop));
    }
    if (ret !== null && typeof ret === 'object' && typeof (ret as PromiseLike<unknown>).then === 'function') {
      return Promise.resolve(ret as PromiseLike<ReconcileResult | void | undefined>).finally(stop);
    }
    stop();
    return ret;
  };
}

/** What one reconcile call gets: the cached `for` object, listers, clients, a logger with a reconcile id. */
function reconcileContext<T extends KubeObject>(
  def: ControllerDefinition<T>,
  request: Request,
  signal: AbortSignal,
): ReconcileContext<T> {
  const { forType, name, fieldManager } = def;
  const cluster = request.cluster === undefined ? undefined : def.clusters?.get(request.cluster);
  if (def.clusters !== undefined && cluster === undefined) throw new ControllerError(`controller ${name}: request for unknown cluster ${String(request.cluster)}`);
  const given = cluster === undefined ? def.client : cluster.client;
  // Every call through the context carries the reconcile's signal; writes are fenced once
  // leadership is lost (the signal's reason is then a LeadershipLostError).
  const fenced = given === undefined ? undefined : fencedClient(given, signal);
  // Read-your-writes: the context's writes are recorded, its stores never return an older copy.
  const ryw = def.readYourWrites;
  const client = fenced === undefined || ryw === undefined ? fenced : writeTrackingClient(fenced, ryw.recorder(request.cluster, requestKey(request)));
  const cachedFor = cluster === undefined ? def.forStore : cluster.forStore;
  const forStore = ryw === undefined || forType === undefined ? cachedFor : ryw.store(cachedFor, forType, request.cluster);
  const reconcileId = randomUUID();
  function objects(): ObjectClient<T>;
  function objects<U extends KubeObject = UnstructuredObject>(ref: ResourceType<U>, namespace?: string): ObjectClient<U>;
  function objects(ref?: ResourceType, namespace?: string): ObjectClient<KubeObject> {
    if (client === undefined) throw new ControllerError(`controller ${name} has no client: pass options.client`);
    if (ref === undefined) {
      if (forType === undefined) throw new ControllerError(`controller ${name} has no for type: pass a resource to objects()`);
      return client.objects(forType, forType.namespaced === false ? undefined : request.namespace, { fieldManager });
    }
    return client.objects(ref, namespace, { fieldManager });
  }
  return withEdits({
    request,
    signal,
    reconcileId,
    logger: reconcileLogger(request.cluster === undefined ? def.baseLogger : def.baseLogger.child({ cluster: request.cluster }), name, request, reconcileId),
    object: forStore.get(request.namespace ? `${request.namespace}/${request.name}` : request.name),
    store: forStore,
    storeOf: <U extends KubeObject>(source: ControllerSource<U>) =>
      (ryw === undefined ? source.store : ryw.store(source.store, source.resource, request.cluster)) as Store<Cached<U>>,
    recorder: def.recorder,
    client,
    fieldManager,
    expectations: def.expectations,
    objects,
  });
}
