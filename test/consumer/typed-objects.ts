/**
 * Typed built-in objects as a consumer sees them: no cast anywhere, and the compiler knows each
 * field (the consumer test type-checks this file with `strict` and `skipLibCheck: false`).
 */
import { InformerFactory, informerSource, resources, type K8s, type KubeClient, type SharedInformer } from 'rxkube';

export function firstImage(client: KubeClient): string | undefined {
  const pods: SharedInformer<K8s.Pod> = new InformerFactory(client).pods();
  return pods.store.get('ns/p')?.spec?.containers[0]?.image;
}

export function replicasOf(client: KubeClient): number | undefined {
  const deployments = new InformerFactory(client).for(resources.deployments);
  informerSource(deployments);
  return deployments.store.list()[0]?.spec?.replicas;
}

export async function configMapData(client: KubeClient): Promise<Record<string, string> | undefined> {
  const cm: K8s.ConfigMap = await client.objects(resources.configMaps, 'default').get('settings');
  return cm.data;
}
