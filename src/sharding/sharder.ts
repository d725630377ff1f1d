import { asyncScheduler, distinctUntilChanged, interval, map, merge } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import type { Registry } from 'prom-client';
import type { KubeObject, PartialObjectMetadata } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { KubeClient } from '../client/kube-client.js';
import type { InformerEvent } from '../cache/informer-event.js';
import type { SharedInformer } from '../informer/shared-informer-interface.js';
import { InformerFactory } from '../informer/informer-factory.js';
import { LEASE_RESOURCE } from '../leader-election/kube-client-lease-api.js';
import type { Lease } from '../leader-election/lease.js';
import type { Logger } from '../logging/logger.js';
import { ControllerBuildError } from '../controller/controller-errors.js';
import type { ControllerSource } from '../controller/controller-source.js';
import { type Controller, controller } from '../controller/controller.js';
import { informerSource } from '../controller/informer-source.js';
import { pointerSegment, ringLabels } from './ring-labels.js';
import { decideAssignment, decideOwnedAssignment, shardState } from './shard-assignment.js';
import { CONTROLLER_RING_LABEL, drainLabel, HashRing, shardKey, shardLabel } from './shard-ring.js';

/** Options of {@link sharder}. */
export interface SharderOptions {
  /** The controller ring (the shards' `sharding.ring`). */
  readonly ring: string;
  /** The sharded controller's `for` type. */
  readonly for: ResourceType;
  /** Types the sharded controller owns: each object follows its controller owner's shard. */
  readonly owns?: readonly ResourceType[];
  readonly client: KubeClient;
  /** Namespace of the shard Leases (the shards' `sharding.leaseNamespace`). */
  readonly leaseNamespace: string;
  /** Informers of the sharder (metadata-only for the sharded types); default a new factory over `client` (all namespaces). */
  readonly informers?: InformerFactory;
  /** Default `sharder-<ring>`. */
  readonly name?: string;
  /** Points per shard on the hash ring; default 100. */
  readonly virtualNodes?: number;
  /** How often lease expiry is checked without lease events, in ms; default 1 000. */
  readonly expiryCheckMs?: number;
  /** Concurrent label writes; default 5. */
  readonly concurrency?: number;
  /** Default true: one sharder per ring runs, on the leader. */
  readonly needLeaderElection?: boolean;
  readonly logger?: Logger;
  readonly metricsRegistry?: Registry;
  readonly scheduler?: SchedulerLike;
}

const OWNER_INDEX = 'sharder:controller-uid';

/**
 * The sharder of a controller ring (after the kubernetes-controller-sharding project; a
 * leader-elected controller, itself not sharded). It watches the ring's shard Leases
 * (`rxkube.io/controller-ring: <ring>`) and, metadata-only, the objects of the `for` type and of
 * the owned types, and keeps every object labelled `shard.rxkube.io/<ring>: <shard>`:
 * - the ready shards (Lease held by the shard and not expired) form a consistent hashing ring;
 *   an object's shard is the ring's choice for its group, kind, namespace and name;
 * - an unassigned object, or one on a shard that is gone (Lease expired or released), is assigned
 *   at once;
 * - an object on another live shard is drained first (`drain.rxkube.io/<ring>`); the shard
 *   acknowledges by removing both labels, then the object is assigned to its new shard;
 * - an owned object carries its controller owner's shard label.
 * Every object is re-examined when the set of ready shards changes (a Lease appears, expires or is
 * released). Label writes are JSON patches guarded by the resourceVersion.
 *
 * ```ts
 * const widgets = shardedController({ for: WIDGETS, owns: [resources.configMaps], client, sharding: { ring: 'widgets', shard, leaseNamespace: 'widgets-system' }, reconcile });
 * mgr.add(widgets);
 * mgr.add(widgets.sharder);     // sharder({ ring: 'widgets', for: WIDGETS, owns: [resources.configMaps], client, leaseNamespace: 'widgets-system' })
 * ```
 */
export function sharder(options: SharderOptions): Controller {
  const ring = options.ring;
  if (typeof ring !== 'string' || ring === '') throw new ControllerBuildError('sharder: ring must be a non-empty string');
  const scheduler = options.scheduler;
  const clock = scheduler ?? asyncScheduler;
  const informers = options.informers ?? new InformerFactory(options.client, scheduler === undefined ? {} : { scheduler });
  const objects = informers.metadata(options.for);
  const owned = (options.owns ?? []).map((type) => ({
    type,
    informer: informers.metadata(type, {
      indexers: {
        [OWNER_INDEX]: (o: KubeObject) => {
          const ref = o.metadata?.ownerReferences?.find((r) => r.controller === true);
          return ref === undefined || ref.kind !== options.for.kind ? [] : [ref.uid];
        },
      },
    }),
  }));
  const leases = informers.for(LEASE_RESOURCE, { namespace: options.leaseNamespace, labelSelector: `${CONTROLLER_RING_LABEL}=${ring}` });
  const shards = new ReadyShards(leases, clock, options.virtualNodes ?? 100);
  const labels = new ShardLabeller(options.client, ring, options.for, owned);
  return controller({
    name: options.name ?? `sharder-${ring}`,
    for: informerSource(objects, options.for),
    owns: owned.map((o) => informerSource(o.informer, o.type)),
    watches: [{ source: shards.source(ring, options.expiryCheckMs ?? 1_000), map: () => objects.store.listKeys() }],
    client: options.client,
    permissions: [
      { resource: LEASE_RESOURCE, verbs: ['get', 'list', 'watch'], namespace: options.leaseNamespace },
      ...[options.for, ...(options.owns ?? [])].map((resource) => ({ resource, verbs: ['get', 'list', 'watch', 'patch'] as const })),
    ],
    concurrency: options.concurrency ?? 5,
    needLeaderElection: options.needLeaderElection ?? true,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.metricsRegistry === undefined ? {} : { metricsRegistry: options.metricsRegistry }),
    ...(scheduler === undefined ? {} : { scheduler }),
    reconcile: async (request, ctx) => {
      if (ctx.object === undefined) return;
      const live = shards.live();
      const desired = shards.hashRing(live).shardFor(shardKey(options.for, request.namespace, request.name));
      await labels.assign(ctx.object, desired, live, ctx.signal);
    },
  });
}

/**
 * The ring's ready shards as the sharder sees them: the shard Leases held and not expired at the
 * scheduler's `now`, and the consistent hashing ring they form (built again only when the set
 * changes).
 */
class ReadyShards {
  private ring: { readonly key: string; readonly ring: HashRing } | undefined;

  constructor(
    private readonly leases: SharedInformer<Lease>,
    private readonly clock: SchedulerLike,
    private readonly virtualNodes: number,
  ) {}

  /** The names of the ready shards now. */
  live(): Set<string> {
    const now = this.clock.now();
    return new Set(this.leases.store.list().filter((l) => shardState(l, now) === 'ready').map((l) => l.metadata?.name ?? ''));
  }

  /** The hash ring of `live` (the same instance while the set is the same). */
  hashRing(live: ReadonlySet<string>): HashRing {
    const key = [...live].sort().join(',');
    if (this.ring?.key !== key) this.ring = { key, ring: new HashRing(live, this.virtualNodes) };
    return this.ring.ring;
  }

  /**
   * The ring as a controller source: one (synthetic) event each time the set of ready shards
   * changes, seen on a Lease event or, for expiry, at least every `expiryCheckMs`.
   */
  source(ringName: string, expiryCheckMs: number): ControllerSource<Lease> {
    const marker: Lease = { metadata: { name: ringName } };
    return {
      resource: LEASE_RESOURCE,
      name: `${ringName}/shard-leases`,
      store: this.leases.store,
      register: () => {
        const listener = this.leases.listen();
        const events$ = merge(listener.events$, interval(expiryCheckMs, this.clock)).pipe(
          map(() => [...this.live()].sort().join(',')),
          distinctUntilChanged(),
          map((): InformerEvent<Lease> => ({ type: 'update', old: marker, object: marker, resync: false })),
        );
        return { events$, synced$: listener.synced$ };
      },
    };
  }
}

/**
 * Writes the ring's labels: an object of the `for` type is assigned to its shard (or drained
 * first, see `decideAssignment`), and each object it controls follows it. Every write is a JSON
 * patch guarded by the object's resourceVersion.
 */
class ShardLabeller {
  constructor(
    private readonly client: KubeClient,
    private readonly ring: string,
    private readonly forType: ResourceType,
    private readonly owned: ReadonlyArray<{ readonly type: ResourceType; readonly informer: SharedInformer<PartialObjectMetadata> }>,
  ) {}

  /** Moves `object` towards `desired` among the `live` shards, then its controlled objects after it. */
  async assign(object: KubeObject, desired: string | undefined, live: ReadonlySet<string>, signal: AbortSignal): Promise<void> {
    const ring = this.ring;
    const current = ringLabels(object, ring) ?? { drain: false };
    const action = decideAssignment(current, desired, live);
    let ownerShard = current.shard;
    if (action.type === 'assign') {
      await this.patch(this.forType, object, { [shardLabel(ring)]: action.shard }, [drainLabel(ring)], signal);
      ownerShard = action.shard;
    } else if (action.type === 'drain') {
      await this.patch(this.forType, object, { [drainLabel(ring)]: 'true' }, [], signal);
    }
    const uid = object.metadata?.uid;
    if (uid === undefined) return;
    for (const o of this.owned) {
      for (const child of o.informer.store.byIndex(OWNER_INDEX, uid)) {
        const next = decideOwnedAssignment(ringLabels(child, ring) ?? { drain: false }, ownerShard);
        if (next.type === 'assign') await this.patch(o.type, child, { [shardLabel(ring)]: next.shard }, [drainLabel(ring)], signal);
      }
    }
  }

  private patch(type: ResourceType, object: KubeObject, set: Readonly<Record<string, string>>, remove: readonly string[], signal: AbortSignal) {
    const meta = object.metadata ?? {};
    const labels = meta.labels;
    const ops: object[] = [{ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion }];
    if (labels === undefined) ops.push({ op: 'add', path: '/metadata/labels', value: set });
    else {
      for (const [k, v] of Object.entries(set)) ops.push({ op: 'add', path: `/metadata/labels/${pointerSegment(k)}`, value: v });
      for (const k of remove) if (labels[k] !== undefined) ops.push({ op: 'remove', path: `/metadata/labels/${pointerSegment(k)}` });
    }
    return this.client.objects(type, meta.namespace).patch(meta.name ?? '', ops, 'json', { signal });
  }
}
