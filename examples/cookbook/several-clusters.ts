// One controller over several clusters: every ConfigMap of `namespace`, in each cluster, is
// stamped with the name of the cluster it lives in.
import { controller, InformerFactory, resources, type ClusterTarget, type Controller, type K8s, type KubeClient } from 'rxkube';

export const CLUSTER = 'cookbook.example.com/cluster';

export function clusterStamper(clients: Readonly<Record<string, KubeClient>>, namespace: string): Controller<K8s.ConfigMap> {
  // Each cluster's own informers; a bare client would get a factory over all namespaces.
  const clusters: Record<string, ClusterTarget> = {};
  for (const [name, client] of Object.entries(clients)) clusters[name] = { client, informers: new InformerFactory(client, { namespace }) };
  return controller({
    name: 'cluster-stamper',
    for: resources.configMaps, // a resource type: watched in every cluster
    clusters, //                  names without `/` or `:`
    reconcile: async (request, ctx) => {
      // request.cluster names the cluster; ctx.object, ctx.store, ctx.client and ctx.objects() are its.
      if (ctx.object === undefined || request.cluster === undefined) return;
      const cluster = request.cluster;
      await ctx.edit((draft) => void ((draft.metadata.annotations ??= {})[CLUSTER] = cluster));
    },
  });
}
