/**
 * The mirror on the embedded API server: source ConfigMaps are copied, changes follow, a copy
 * whose source went away before the start is deleted, and so is one whose source stops matching.
 * Waits with `until` (a cache condition) rather than sleeping.
 *
 *   npx tsx --conditions=source examples/configmap-mirror/demo.ts
 */
import { pathToFileURL } from 'node:url';
import { firstValueFrom } from 'rxjs';
import { InformerFactory, KubeClient, manager, resources, until, type KubeObject } from 'rxkube';
import { startApiServer } from '@rxkube/testkit';
import { configMapMirror, FROM } from './mirror-controller.js';

const cm = (namespace: string, name: string, labels: Record<string, string>, data: Record<string, string>): KubeObject & { data: Record<string, string> } => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels },
  data,
});

/** Runs the scenario; returns the copies left in `mirror` (`name=data` lines). */
export async function runMirrorDemo(write: (line: string) => void = console.log): Promise<string[]> {
  const server = await startApiServer({ namespaces: ['default', 'source', 'mirror'] });
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  const stop = new AbortController();
  try {
    server.seed([
      cm('source', 'app-settings', { mirror: 'true' }, { mode: 'fast' }),
      cm('source', 'private', {}, { secret: 'no' }),
      cm('mirror', 'stale', { [FROM]: 'source' }, { left: 'over' }), // its source is gone
      cm('mirror', 'hand-made', {}, { mine: 'yes' }), //               not a copy: left alone
    ]);
    const informers = new InformerFactory(client);
    const mgr = manager({ client });
    mgr.add(informers.runnable());
    mgr.add(configMapMirror({ client, informers, from: 'source', to: 'mirror' }));
    const running = mgr.start(stop.signal);
    const copies = informers.for(resources.configMaps, { namespace: 'mirror' });
    const wait = (name: string, ok: (o: KubeObject | undefined) => boolean): Promise<unknown> =>
      firstValueFrom(until(copies, `mirror/${name}`, ok, { timeoutMs: 10_000 }));
    const dataOf = (o: KubeObject | undefined): string => JSON.stringify((o as { data?: unknown } | undefined)?.data);

    write('── start: app-settings is copied, the stale copy is deleted');
    await wait('app-settings', (o) => o !== undefined);
    await wait('stale', (o) => o === undefined);
    write('── app-settings changes: the copy follows');
    server.update({ ...server.get('v1', 'ConfigMap', 'app-settings', 'source'), data: { mode: 'safe' } });
    await wait('app-settings', (o) => dataOf(o) === '{"mode":"safe"}');
    write('── feature-flags is labelled mirror=true: copied; app-settings loses the label: its copy goes');
    server.create(cm('source', 'feature-flags', { mirror: 'true' }, { beta: 'on' }));
    server.update({ ...server.get('v1', 'ConfigMap', 'app-settings', 'source'), metadata: { ...server.get('v1', 'ConfigMap', 'app-settings', 'source')?.metadata, labels: {} } });
    await wait('feature-flags', (o) => o !== undefined);
    await wait('app-settings', (o) => o === undefined);
    const left = server.list('v1', 'ConfigMap', 'mirror').map((o) => `${o.metadata?.name}=${dataOf(o)}`);
    for (const line of left) write(`   mirror/${line}`);
    stop.abort();
    await running;
    return left;
  } finally {
    stop.abort();
    client.close();
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runMirrorDemo();
