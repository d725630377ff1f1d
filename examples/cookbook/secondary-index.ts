// Rolls a Deployment's pods when a ConfigMap they read changes: the Deployment's pod template gets
// a hash of those ConfigMaps. An index of Deployments by the ConfigMaps they read maps each
// ConfigMap event to the Deployments to reconcile.
import { createHash } from 'node:crypto';
import { controller, informerSource, type Controller, type InformerFactory, type K8s, type KubeClient } from 'rxkube';

export const CONFIG_HASH = 'cookbook.example.com/config-hash';

/** The ConfigMaps a Deployment's pods read (volumes, envFrom), as `namespace/name`: its index values. */
export function configMapsOf(deployment: K8s.Deployment): string[] {
  const pod = deployment.spec?.template.spec;
  const names = [
    ...(pod?.volumes ?? []).map((v) => v.configMap?.name),
    ...(pod?.containers ?? []).flatMap((c) => (c.envFrom ?? []).map((e) => e.configMapRef?.name)),
  ].filter((n) => n !== undefined);
  return [...new Set(names)].map((n) => `${deployment.metadata?.namespace}/${n}`);
}

export function configReloader(client: KubeClient, informers: InformerFactory): Controller<K8s.Deployment> {
  const deployments = informers.deployments().withIndex('configMap', configMapsOf);
  const configMaps = informers.configMaps();
  const byConfigMap = deployments.by('configMap'); // a misspelt index name does not compile
  return controller({
    name: 'config-reloader',
    for: informerSource(deployments),
    watches: [{
      source: informerSource(configMaps),
      map: (cm) => byConfigMap.keys(`${cm.metadata.namespace}/${cm.metadata.name}`), // the Deployments reading it
    }],
    client,
    reconcile: async (_request, ctx) => {
      const deployment = ctx.object;
      if (deployment === undefined) return;
      const hash = createHash('sha256');
      for (const key of configMapsOf(deployment).sort()) {
        const data = configMaps.store.get(key)?.data ?? {}; // a missing ConfigMap hashes as empty
        hash.update(JSON.stringify([key, Object.entries(data).sort()]));
      }
      const digest = hash.digest('hex').slice(0, 16);
      await ctx.edit((draft) => { // nothing is sent when the hash is already there
        const template = draft.spec?.template;
        if (template !== undefined) ((template.metadata ??= {}).annotations ??= {})[CONFIG_HASH] = digest;
      });
    },
  });
}
