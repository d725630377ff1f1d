// Spreads one controller's objects over several replicas. Every replica holds a shard Lease and
// reconciles only the ConfigMaps labelled with its shard; the ring's sharder, run by the elected
// leader among the replicas, assigns each ConfigMap to a live shard by consistent hashing.
import { manager, type KubeClient, type Manager, resources } from 'rxkube';
import { shardedController } from 'rxkube/sharding';

export const RECONCILED_BY = 'cookbook.example.com/reconciled-by';

/** One replica: `shard` is its name in the ring, unique and stable (the pod name, from the downward API). */
export function shardReplica(client: KubeClient, shard: string, namespace: string): Manager {
  const stamper = shardedController({
    name: 'stamper',
    for: resources.configMaps, // resource types: each lease term lists them with the shard's label selector
    client,
    sharding: { ring: 'stamper', shard, leaseNamespace: namespace, informers: { namespace } },
    reconcile: async (_request, ctx) => {
      if (ctx.object === undefined) return; // deleted, or moved off this shard meanwhile
      await ctx.edit((draft) => void ((draft.metadata.annotations ??= {})[RECONCILED_BY] = shard));
    },
  });
  const mgr = manager({ client, leaderElection: { id: 'stamper-sharder', namespace, identity: shard, releaseOnCancel: true } });
  mgr.add(stamper); //         needs no leadership: it holds its own shard Lease
  mgr.add(stamper.sharder); // runs on the leader only
  return mgr;
}
