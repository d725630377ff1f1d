import { BehaviorSubject, distinctUntilChanged, ignoreElements, lastValueFrom, Observable, switchMap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { RunnableDeps } from '../api/runnable.js';
import { Indexer } from '../cache/indexer.js';
import type { Store } from '../cache/store.js';
import { type Controller, controller } from '../controller/controller.js';
import { ControllerBuildError, ControllerError, ControllerStartedTwiceError } from '../controller/controller-errors.js';
import type { ControllerReconciler, WatchSpec } from '../controller/controller-options.js';
import type { ControllerSource } from '../controller/controller-source.js';
import { informerSource } from '../controller/informer-source.js';
import { InformerFactory } from '../informer/informer-factory.js';
import type { SharedInformer } from '../informer/shared-informer-interface.js';
import { kubeClientLeaseApi, LEASE_RESOURCE } from '../leader-election/kube-client-lease-api.js';
import { leaderElection } from '../leader-election/leader-election.js';
import { LeaseLock } from '../leader-election/lease-lock.js';
import type { ReconcileOutcome } from '../workqueue/reconcile-result.js';
import { acknowledgeDrain } from './drain-acknowledgement.js';
import { ringLabels } from './ring-labels.js';
import { shardAction } from './shard-assignment.js';
import { CONTROLLER_RING_LABEL, shardLabel } from './shard-ring.js';
import { sharder } from './sharder.js';
import { checkShardedOptions, isResourceType, type ShardedControllerOptions } from './sharding-options.js';

export type { ShardedControllerOptions, ShardingOptions } from './sharding-options.js';

/** Work-queue priority of drain acknowledgements (above everything a controller queues by default). */
const DRAIN_PRIORITY = 100;

/**
 * A controller run as one shard of a ring (see {@link shardedController}), and (`sharder`) the
 * ring's sharder — a leader-elected controller to add to the same manager (every replica adds it;
 * the leader runs it).
 */
export interface ShardedController<T extends KubeObject = KubeObject> extends Controller<T> {
  /** The ring's sharder for this controller's `for` and `owns` types (built once, on first access). */
  readonly sharder: Controller;
}

/**
 * A controller run as one shard of a ring (controller sharding after the
 * kubernetes-controller-sharding project), built on `controller()`: instead of leader election it
 * holds its own shard Lease (named `shard`, labelled `rxkube.io/controller-ring: <ring>`), which
 * the ring's {@link sharder} watches to assign objects. While it holds the Lease, each term:
 * - builds a fresh `controller()` whose `for` and `owns` informers select
 *   `shard.rxkube.io/<ring>=<shard>`, so cache and work divide by the number of shards (a new
 *   term lists again: a shard whose lease lapsed never acts on a cache from before its objects
 *   moved);
 * - reconciles an object only while it carries this shard's label and no drain label; a drain
 *   label is acknowledged (both labels removed, guarded by the resourceVersion) instead of being
 *   reconciled, which hands the object over; anything else (gone from the cache, or another
 *   shard's) is skipped — so deletions must be handled with finalizers.
 * On losing the Lease (renew deadline) the term stops; running reconciles get
 * `leaseDuration − renewDeadline` (at most) to finish, before the sharder may move their objects.
 *
 * `for` and `owns` must be resource types (resolved per term); `watches` may be sources or
 * resource types (resolved through `informers`, unfiltered).
 *
 * ```ts
 * const widgets = shardedController({
 *   for: WIDGETS, owns: [resources.configMaps], client, reconcile,
 *   sharding: { ring: 'widgets', shard: process.env.POD_NAME!, leaseNamespace: 'widgets-system' },
 * });
 * mgr.add(widgets);
 * mgr.add(widgets.sharder);     // every replica adds it; the manager's leader runs it
 * ```
 * @throws ControllerBuildError for options a ring cannot work with. (The controller definition
 * itself is checked by `controller()` when a term starts: an invalid one errors the run.)
 */
export function shardedController<
  T extends KubeObject = KubeObject,
  const W extends readonly KubeObject[] = readonly KubeObject[],
  const O extends readonly KubeObject[] = readonly KubeObject[],
>(typedOptions: ShardedControllerOptions<T, W, O>): ShardedController<T> {
  // The entries' own types only serve the type check of the call (as in `controller()`).
  const options = typedOptions as unknown as ShardedControllerOptions<T>;
  const { sharding, controllerOptions, name, client, forType, ownsTypes } = checkShardedOptions(options);
  const scheduler = options.scheduler;
  const leaseDurationMs = sharding.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = sharding.renewDeadlineMs ?? 10_000;
  const me = sharding.shard;
  const selector = `${shardLabel(sharding.ring)}=${me}`;
  const election = leaderElection({
    lock: new LeaseLock(sharding.leaseApi ?? kubeClientLeaseApi(client), { namespace: sharding.leaseNamespace, name: me }, me, {
      labels: { [CONTROLLER_RING_LABEL]: sharding.ring },
    }),
    leaseDurationMs,
    renewDeadlineMs,
    ...(sharding.retryPeriodMs === undefined ? {} : { retryPeriodMs: sharding.retryPeriodMs }),
    releaseOnCancel: true,
    ...(scheduler === undefined ? {} : { scheduler }),
  });
  const watches = (options.watches ?? []).map((w) => (isResourceType(w.source) ? { ...w, source: resolveWatch(options.informers, w.source) } : w));
  const reconcile: ControllerReconciler<T> = (request, ctx) => {
    const object = ctx.object;
    const action = shardAction(ringLabels(object, sharding.ring), me);
    if (action === 'skip') return undefined;
    if (action === 'acknowledge') return acknowledgeDrain(client, forType, object as T, sharding.ring, ctx.signal).then(() => undefined);
    return options.reconcile(request, ctx);
  };
  // A drain hands an object over to another shard only once this one acknowledges it, so drains
  // go ahead of other work in the queue: a replica that joins does not wait for the first one to
  // get through its whole backlog before it receives its share.
  const drains = (factory: InformerFactory): WatchSpec<T> => ({
    source: informerSource(factory.for(forType) as SharedInformer<T>, forType),
    map: (o) => (shardAction(ringLabels(o, sharding.ring), me) === 'acknowledge' ? [{ namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' }] : []),
    priority: DRAIN_PRIORITY,
  });
  // One term's controller: the public builder over the term's label-selected informers.
  const build = (factory: InformerFactory): Controller<T> =>
    controller<T>({
      ...controllerOptions,
      name,
      skipNameValidation: true,
      needLeaderElection: false,
      informers: factory,
      watches: [...watches, drains(factory) as WatchSpec],
      reconcile,
      shutdownGracePeriodMs: Math.min(options.shutdownGracePeriodMs ?? 30_000, Math.max(0, leaseDurationMs - renewDeadlineMs - 1_000)),
    });

  const current = new BehaviorSubject<Controller<T> | undefined>(undefined);
  let injected: RunnableDeps | undefined;
  let started = false;
  const term = (): Observable<ReconcileOutcome> =>
    new Observable<ReconcileOutcome>((subscriber) => {
      const abort = new AbortController();
      const factory = new InformerFactory(client, { ...sharding.informers, labelSelector: selector, ...(scheduler === undefined ? {} : { scheduler }) });
      const inner = build(factory);
      if (injected !== undefined) inner.inject(injected);
      current.next(inner);
      // Outlives the term's teardown: the inner run drains (grace period) after the abort.
      inner.run(abort.signal).subscribe({
        next: (o) => subscriber.next(o),
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        // Graceful: the queue lets running reconciles finish within the grace period, then ends.
        abort.abort();
        if (current.value === inner) current.next(undefined);
      };
    });
  const run = (signal?: AbortSignal): Observable<ReconcileOutcome> =>
    new Observable<ReconcileOutcome>((subscriber) => {
      if (started) {
        subscriber.error(new ControllerStartedTwiceError(name));
        return;
      }
      started = true;
      // An observer object, not `subscriber` itself (RxJS would return it as the subscription).
      const sub = election.whileLeading(term).subscribe({
        next: (o) => subscriber.next(o),
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      const stop = (): void => {
        try {
          sub.unsubscribe();
        } catch (err) {
          subscriber.error(err);
          return;
        }
        subscriber.complete();
      };
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop, { once: true });
      return () => {
        signal?.removeEventListener('abort', stop);
        sub.unsubscribe();
      };
    });
  const ready$ = current.pipe(
    switchMap((c) => (c === undefined ? [false] : c.ready$)),
    distinctUntilChanged(),
  );
  let ready = false;
  ready$.subscribe((v) => (ready = v));
  const empty = new Indexer<T>();
  let ringSharder: Controller | undefined;
  return {
    name,
    needLeaderElection: false,
    get store(): Store<T> {
      return current.value?.store ?? empty;
    },
    ready$,
    readyCheck: () => {
      if (!ready) throw new ControllerError(`controller ${name} (shard ${me} of ring ${sharding.ring}) is not running`);
    },
    run,
    inject: (deps) => {
      if (!started) injected = deps;
    },
    get sharder(): Controller {
      ringSharder ??= sharder({
        ...(scheduler === undefined ? {} : { scheduler }),
        ...sharding.sharder,
        ring: sharding.ring,
        for: forType,
        owns: ownsTypes,
        client,
        leaseNamespace: sharding.leaseNamespace,
      });
      return ringSharder;
    },
    permissions: () => [
      ...(options.permissions ?? []),
      { resource: LEASE_RESOURCE, verbs: ['get', 'create', 'update'], namespace: sharding.leaseNamespace },
      { resource: forType, verbs: ['patch'] },
    ],
    start: (signal: AbortSignal) => lastValueFrom(run(signal).pipe(ignoreElements()), { defaultValue: undefined }),
  };
}

/** A `watches` resource type of a sharded controller as a source over `informers` (not label-selected). */
function resolveWatch(informers: InformerFactory | undefined, type: ResourceType): ControllerSource {
  if (informers === undefined) throw new ControllerBuildError(`${type.kind}: a watches resource of a sharded controller needs options.informers`, { option: 'informers' });
  const informer = informers.for(type);
  return {
    resource: type,
    name: informer.name,
    store: informer.store,
    register: () => {
      const listener = informer.listen();
      return { events$: listener.events$, synced$: listener.synced$ };
    },
  };
}
