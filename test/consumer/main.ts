/**
 * Runs the consumer's controller against the embedded API server (TLS and a token, so the real
 * client path), through a manager, with all three entry points: `rxkube`, `rxkube/operators`,
 * `rxkube/testing`. Exits non-zero unless the expired ConfigMap is deleted and the others stay.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InformerFactory, informerSource, KubeClient, manager, type KubeConfigLike } from 'rxkube';
import { deletionHandlingKey } from 'rxkube/cache';
import { filterEvents } from 'rxkube/operators';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { CONFIG_MAPS, configMap, expiryController } from './expiry-controller.js';

const server: ApiServer = await startApiServer({ tls: true, token: true });
const kubeConfig: KubeConfigLike = server.kubeConfig;
const client = KubeClient.fromKubeConfig(kubeConfig);
const stop = new AbortController();
try {
  const informers = new InformerFactory(client, { namespace: 'default' });
  const configMaps = informers.configMaps();
  const deleted: string[] = [];
  const seen = configMaps.events$.pipe(filterEvents((e) => e.type === 'delete')).subscribe((e) => deleted.push(deletionHandlingKey(e.object)));

  const mgr = manager({ client });
  mgr.add(informers.runnable());
  mgr.add(expiryController({ configMaps: informerSource(configMaps, CONFIG_MAPS), client }));
  const running = mgr.start(stop.signal);

  const objects = client.objects(CONFIG_MAPS, 'default');
  await objects.create(configMap('soon', Date.now() + 300));
  await objects.create(configMap('later', Date.now() + 3_600_000));
  await objects.create(configMap('never'));

  for (let i = 0; !deleted.includes('default/soon'); i++) {
    if (i > 600) throw new Error(`'soon' was not deleted within 30 s (deleted: ${deleted.join(', ') || 'none'})`);
    await sleep(50);
  }
  const left = server.list('v1', 'ConfigMap', 'default').map((o) => o.metadata?.name).sort();
  if (left.join(',') !== 'later,never') throw new Error(`ConfigMaps left: ${left.join(', ')}; want later, never`);

  seen.unsubscribe();
  stop.abort();
  await running;
  console.log(`consumer controller: deleted ${deleted.join(', ')}; kept ${left.join(', ')} (Node ${process.version})`);
} finally {
  stop.abort();
  client.close();
  await server.close();
}
