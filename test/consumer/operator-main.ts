/**
 * Runs the consumer's operator against the embedded API server, through a manager: the ConfigMap
 * mirror (mirror-controller.ts) and the live pods-per-node table (pods-table.ts). Exits non-zero
 * unless the copy follows its source and is deleted once its source is no longer named, and the
 * table shows the pods where they run.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InformerFactory, KubeClient, manager, resources, type K8s } from 'rxkube';
import { startApiServer } from '@rxkube/testkit';
import { MIRROR_OF, mirrorController, SETTINGS } from './mirror-controller.js';
import { podsPerNode, renderTable } from './pods-table.js';

async function until(what: string, holds: () => boolean, state: () => unknown): Promise<void> {
  for (let i = 0; !holds(); i++) {
    if (i > 600) throw new Error(`${what}: not within 30 s (last: ${JSON.stringify(state())})`);
    await sleep(50);
  }
}

const server = await startApiServer();
const client = KubeClient.fromKubeConfig(server.kubeConfig);
const stop = new AbortController();
try {
  const informers = new InformerFactory(client, { namespace: 'default' });
  const cluster = new InformerFactory(client);
  const mgr = manager({ client });
  mgr.add(mirrorController({ informers, client }));
  mgr.add(informers.runnable());
  const nodes = cluster.nodes();
  const pods = cluster.pods();
  mgr.add(cluster.runnable());
  let table = '';
  const tableSub = podsPerNode(nodes, pods).subscribe((t) => (table = renderTable(t)));
  const running = mgr.start(stop.signal);

  const configMaps = client.objects(resources.configMaps, 'default');
  const data = (name: string): Record<string, string> | undefined => {
    const found: K8s.ConfigMap | undefined = informers.configMaps().store.get(`default/${name}`);
    return found?.data;
  };
  await configMaps.create({ metadata: { name: SETTINGS }, data: { 'app-config': 'on' } });
  await configMaps.create({ metadata: { name: 'app-config' }, data: { mode: 'fast' } });
  await configMaps.create({ metadata: { name: 'private' }, data: { secret: 'no' } });
  await until('app-config-mirror copies app-config', () => data('app-config-mirror')?.['mode'] === 'fast', () => data('app-config-mirror'));
  const copy = await configMaps.get('app-config-mirror');
  if (copy.metadata?.labels?.[MIRROR_OF] !== 'app-config') throw new Error(`the copy's labels: ${JSON.stringify(copy.metadata?.labels)}`);
  if (copy.metadata?.ownerReferences?.[0]?.name !== 'app-config') throw new Error(`the copy's owners: ${JSON.stringify(copy.metadata?.ownerReferences)}`);
  await configMaps.patch('app-config', { data: { mode: 'safe' } });
  await until('the copy follows its source', () => data('app-config-mirror')?.['mode'] === 'safe', () => data('app-config-mirror'));
  await configMaps.patch(SETTINGS, { data: { 'app-config': 'off' } });
  await until('the copy is deleted once its source is not named', () => data('app-config-mirror') === undefined, () => data('app-config-mirror'));
  if (data('private-mirror') !== undefined) throw new Error('a ConfigMap not named was mirrored');

  const nodeClient = client.objects(resources.nodes);
  const podClient = client.objects(resources.pods, 'default');
  await nodeClient.create({ metadata: { name: 'node-a' } });
  await nodeClient.create({ metadata: { name: 'node-b' } });
  const pod = (name: string, nodeName?: string): K8s.Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: 'c', image: 'busybox' }] },
  });
  await podClient.create(pod('web-1', 'node-a'));
  await podClient.create(pod('web-2', 'node-a'));
  await podClient.create(pod('queued'));
  await podClient.patchStatus('web-1', { status: { phase: 'Running' } });
  const want = ['(no node) Pending=1', 'node-a Pending=1 Running=1', 'node-b'].join('\n');
  await until('the table shows the pods per node', () => table === want, () => table);

  tableSub.unsubscribe();
  stop.abort();
  await running;
  console.log(`consumer operator: mirror ok; table:\n${table}`);
} finally {
  stop.abort();
  client.close();
  await server.close();
}
