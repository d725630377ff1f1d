import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { KubeClient } from '../client/kube-client.js';
import { ControllerBuildError } from '../controller/controller-errors.js';
import type { ControllerOptions, OwnsSpec } from '../controller/controller-options.js';
import type { InformerFactoryOptions } from '../informer/informer-factory.js';
import type { LeaseApi } from '../leader-election/lease-api.js';
import type { SharderOptions } from './sharder.js';

/**
 * This replica's place in a controller ring: it is shard `shard` of ring `ring`. The `sharding`
 * option of {@link ShardedControllerOptions}.
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
 * Options of `shardedController`: a controller's options (see `controller`) and `sharding`.
 * `for` and `owns` must be resource types (each lease term lists them with the shard's label
 * selector), `client` is required, `informers` resolves only `watches` given as resource types.
 * Not `clusters` (a ring lives in one cluster) nor `needLeaderElection` (a shard holds its own
 * Lease instead; the ring's sharder is the leader-elected part). As for `controller`, `W` and `O`
 * are the object types of the `watches` and `owns` entries, one per entry, inferred from each
 * entry's source: they type that entry's `map`, `filter` and `predicates`.
 */
export interface ShardedControllerOptions<
  T extends KubeObject = KubeObject,
  W extends readonly KubeObject[] = readonly KubeObject[],
  O extends readonly KubeObject[] = readonly KubeObject[],
> extends Omit<ControllerOptions<T, W, O>, 'clusters' | 'needLeaderElection'> {
  readonly sharding: ShardingOptions;
}

/** Sharded-controller options after checking: the resource types and client a ring needs. */
export interface CheckedShardedOptions<T extends KubeObject> {
  readonly sharding: ShardingOptions;
  /** The options to build each term's controller from (without `sharding`). */
  readonly controllerOptions: Omit<ShardedControllerOptions<T>, 'sharding'>;
  readonly name: string;
  readonly client: KubeClient;
  readonly forType: ResourceType<T>;
  readonly ownsTypes: readonly ResourceType[];
}

/** A resource type (not a `ControllerSource`, which has `register`). */
export function isResourceType(x: unknown): x is ResourceType {
  return x !== null && typeof x === 'object' && typeof (x as ResourceType).kind === 'string' && !('register' in (x as object));
}

/**
 * Checks the options of a sharded controller.
 * @throws ControllerBuildError naming the option that cannot work in a ring.
 */
export function checkShardedOptions<T extends KubeObject>(options: ShardedControllerOptions<T>): CheckedShardedOptions<T> {
  if (options === null || typeof options !== 'object') throw new ControllerBuildError('shardedController needs options');
  const { sharding, ...controllerOptions } = options;
  if (sharding === null || typeof sharding !== 'object') throw new ControllerBuildError('shardedController needs options.sharding', { option: 'sharding' });
  if (typeof sharding.ring !== 'string' || !/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/.test(sharding.ring)) {
    throw new ControllerBuildError(`sharding.ring must be a label name part (≤ 63 lower-case characters), got ${JSON.stringify(sharding.ring)}`, {
      option: 'sharding.ring',
    });
  }
  if (typeof sharding.shard !== 'string' || sharding.shard === '') {
    throw new ControllerBuildError('sharding.shard must be a non-empty string', { option: 'sharding.shard' });
  }
  if ((options as ControllerOptions<T>).clusters !== undefined) throw new ControllerBuildError('sharding and clusters cannot be combined', { option: 'clusters' });
  const client = options.client;
  if (client === undefined) throw new ControllerBuildError('a sharded controller needs options.client', { option: 'client' });
  const forType = options.for === undefined ? undefined : isResourceType(options.for) ? options.for : (options.for as { source?: unknown }).source;
  if (!isResourceType(forType)) {
    throw new ControllerBuildError('a sharded controller needs for: a resource type (it is listed per term with the shard label)', { option: 'for' });
  }
  const ownsTypes = (options.owns ?? []).map((o, i) => {
    const t = isResourceType(o) ? o : (o as OwnsSpec).source;
    if (!isResourceType(t)) throw new ControllerBuildError('a sharded controller needs owns entries given as resource types', { option: `owns[${i}]` });
    return t;
  });
  return {
    sharding,
    controllerOptions,
    name: options.name ?? forType.kind.toLowerCase(),
    client,
    forType: forType as ResourceType<T>,
    ownsTypes,
  };
}
