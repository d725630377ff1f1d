import { BehaviorSubject, distinctUntilChanged, ignoreElements, lastValueFrom, Observable, switchMap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import { Indexer } from '../cache/indexer.js';
import type { Store } from '../cache/store.js';
import type { KubeClient } from '../client/kube-client.js';
import { InformerFactory, type InformerFactoryOptions } from '../informer/informer-factory.js';
import { kubeClientLeaseApi, LEASE_RESOURCE } from '../leader-election/kube-client-lease-api.js';
import type { RunnableDeps } from '../api/runnable.js';
import { leaderElection } from '../leader-election/leader-election.js';
import type { LeaseApi } from '../leader-election/lease-api.js';
import { LeaseLock } from '../leader-election/lease-lock.js';
import type { ReconcileOutcome } from '../workqueue/reconcile-result.js';
import { ControllerBuildError, ControllerError, ControllerStartedTwiceError } from './controller-errors.js';
import type { ControllerOptions, ControllerReconciler, OwnsSpec, WatchSpec } from './controller-options.js';
import type { ControllerSource } from './controller-source.js';
import { informerSource } from './informer-source.js';
import type { SharedInformer } from '../informer/shared-informer.js';
import { type Controller, controller } from './controller.js';
import { sharder, type SharderOptions } from './sharder.js';
import { shardAction } from './shard-assignment.js';
import { CONTROLLER_RING_LABEL, drainLabel, shardLabel } from './shard-ring.js';

/** Work-queue priority of drain acknowledgements (above everything a controller queues by default). */
const DRAIN_PRIORITY = 100;

/**
 * Options of a sharded controller (`controller({ …, sharding })`): this replica is shard `shard`
 * of controller ring `ring`. See {@link shardedController}.
 */
export interface ShardingOptions {
  /** The controller ring (one per sharded controller; ≤ 63 characters, a label name part). */
  readonly ring: string;
  /** This replica's shard name (unique in the ring, e.g. the pod name); also its Lease's name. */
  readonly shard: string;
  /** Namespace of the shard Leases. */
  readonly leaseNamespace: string;
  /** Lease writes; default the controller's `client`. */
  readonly leaseApi?: LeaseApi;
  /** Default 15 000. */
  readonly leaseDurationMs?: number;
  /** Default 10 000. */
  readonly renewDeadlineMs?: number;
  /** Default 2 000. */
  readonly retryPeriodMs?: number;
  /** Options of the per-term informer factory of `for` and `owns` (the shard's label selector is added). */
  readonly informers?: Omit<InformerFactoryOptions, 'labelSelector' | 'scheduler'>;
  /** Options of the ring's sharder (`ShardedController.sharder`) beyond what the controller's options give. */
  readonly sharder?: Omit<SharderOptions, 'ring' | 'for' | 'owns' | 'client' | 'leaseNamespace'>;
}

/**
 * A controller built with `sharding`: one shard of a ring, and (`sharder`) the ring's sharder —
 * a leader-elected controller to add to the same manager (every replica adds it; the leader runs it).
 */
export interface ShardedController<T extends KubeObject = KubeObject> extends Controller<T> {
  /** The ring's sharder for this controller's `for` and `owns` types (built once, on first access). */
  readonly sharder: Controller;
}

/** The ring's labels of an object as the sharding decisions read them. */
export function ringLabels(object: KubeObject | undefined, ring: string): { shard?: string; drain: boolean } | undefined {
  if (object === undefined) return undefined;
  const labels = object.metadata?.labels ?? {};
  const shard = labels[shardLabel(ring)];
  return { ...(shard === undefined ? {} : { shard }), drain: labels[drainLabel(ring)] !== undefined };
}

/** JSON-pointer escaping of one path segment (label keys hold '/'). */
export function pointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * A controller run as one shard of a ring (controller sharding after the
 * kubernetes-controller-sharding project): instead of leader election it holds its own shard Lease
 * (named `shard`, labelled `rxkube.io/controller-ring: <ring>`), which the ring's {@link sharder}
 * watches to assign objects. While it holds the Lease, each term:
 * - starts fresh informers for `for` and `owns` that select `shard.rxkube.io/<ring>=<shard>`,
 *   so cache and work divide by the number of shards (a new term lists again: a shard whose lease
 *   lapsed never acts on a cache from before its objects moved);
 * - reconciles an object only while it carries this shard's label and no drain label; a drain
 *   label is acknowledged (both labels removed, guarded by the resourceVersion) instead of being
 *   reconciled, which hands the object over; anything else (gone from the cache, or another
 *   shard's) is skipped — so deletions must be handled with finalizers.
 * On losing the Lease (renew deadline) the term stops; running reconciles get
 * `leaseDuration − renewDeadline` (at most) to finish, before the sharder may move their objects.
 *
 * `for` and `owns` must be resource types (resolved per term); `watches` may be sources or
 * resource types (resolved through `informers`, unfiltered).
 */
export function shardedController<T extends KubeObject>(options: ControllerOptions<T> & { readonly sharding: ShardingOptions }): ShardedController<T> {
  const { sharding } = options;
  if (typeof sharding.ring !== 'string' || !/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/.test(sharding.ring)) {
    throw new ControllerBuildError(`sharding.ring must be a label name part (≤ 63 lower-case characters), got ${JSON.stringify(sharding.ring)}`);
  }
  if (typeof sharding.shard !== 'string' || sharding.shard === '') throw new ControllerBuildError('sharding.shard must be a non-empty string');
  if (options.clusters !== undefined) throw new ControllerBuildError('sharding and clusters cannot be combined');
  const client = options.client;
  if (client === undefined) throw new ControllerBuildError('a sharded controller needs options.client');
  const isType = (x: unknown): x is ResourceType => x !== null && typeof x === 'object' && typeof (x as ResourceType).kind === 'string' && !('register' in (x as object));
  const forType = options.for === undefined ? undefined : isType(options.for) ? options.for : (options.for as { source?: unknown }).source;
  if (!isType(forType)) throw new ControllerBuildError('a sharded controller needs for: a resource type (it is listed per term with the shard label)');
  const ownsTypes = (options.owns ?? []).map((o) => {
    const t = isType(o) ? o : (o as OwnsSpec).source;
    if (!isType(t)) throw new ControllerBuildError('a sharded controller needs owns entries given as resource types');
    return t;
  });
  let ringSharder: Controller | undefined;
  const name = options.name ?? forType.kind.toLowerCase();
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
  const watches = (options.watches ?? []).map((w) =>
    isType(w.source)
      ? { ...w, source: resolveWatch(options.informers, w.source) }
      : w,
  );
  const reconcile: ControllerReconciler<T> = (request, ctx) => {
    const object = ctx.object;
    const action = shardAction(ringLabels(object, sharding.ring), me);
    if (action === 'skip') return undefined;
    if (action === 'acknowledge') return acknowledgeDrain(client, forType, object as T, sharding.ring, ctx.signal).then(() => undefined);
    return options.reconcile(request, ctx);
  };
  const current = new BehaviorSubject<Controller<T> | undefined>(undefined);
  let injected: RunnableDeps | undefined;
  const empty = new Indexer<T>();
  let started = false;
  // A drain hands an object over to another shard only once this one acknowledges it, so drains
  // go ahead of other work in the queue: a replica that joins does not wait for the first one to
  // get through its whole backlog before it receives its share.
  const drains = (factory: InformerFactory): WatchSpec<T> => ({
    source: informerSource(factory.for(forType) as SharedInformer<T>, forType as ResourceType<T>),
    map: (o) => (shardAction(ringLabels(o, sharding.ring), me) === 'acknowledge' ? [{ namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' }] : []),
    priority: DRAIN_PRIORITY,
  });
  const build = (factory: InformerFactory): Controller<T> =>
    controller<T>({
      ...options,
      sharding: undefined,
      name,
      skipNameValidation: true,
      needLeaderElection: false,
      informers: factory,
      watches: [...watches, drains(factory) as WatchSpec],
      reconcile,
      shutdownGracePeriodMs: Math.min(options.shutdownGracePeriodMs ?? 30_000, Math.max(0, leaseDurationMs - renewDeadlineMs - 1_000)),
    });
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

function resolveWatch(informers: InformerFactory | undefined, type: ResourceType): ControllerSource {
  if (informers === undefined) throw new ControllerBuildError(`${type.kind}: a watches resource of a sharded controller needs options.informers`);
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

/** Removes the ring's shard and drain labels of `object`, guarded by its resourceVersion (the drain acknowledgement). */
export async function acknowledgeDrain(client: KubeClient, type: ResourceType, object: KubeObject, ring: string, signal?: AbortSignal): Promise<void> {
  const meta = object.metadata ?? {};
  const labels = meta.labels ?? {};
  const ops: object[] = [{ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion }];
  for (const key of [shardLabel(ring), drainLabel(ring)]) {
    if (labels[key] !== undefined) ops.push({ op: 'remove', path: `/metadata/labels/${pointerSegment(key)}` });
  }
  await client.objects(type, meta.namespace).patch(meta.name ?? '', ops, 'json', signal === undefined ? {} : { signal });
}
