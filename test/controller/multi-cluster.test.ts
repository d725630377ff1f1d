/**
 * One controller over two clusters (two embedded API servers): resource types are watched in
 * both, requests carry their cluster, one queue serves both (same name in two clusters = two
 * keys), and the reconcile's object, store and client are its cluster's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { ControllerBuildError } from '../../src/controller/controller-errors.js';
import { controller } from '../../src/controller/controller.js';
import { informerSource } from '../../src/controller/informer-source.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import type { Request } from '../../src/workqueue/request.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('a controller over two clusters', () => {
  const servers: Record<string, ApiServer> = {};
  const clients: Record<string, KubeClient> = {};
  beforeAll(async () => {
    for (const name of ['east', 'west']) {
      const server = await startApiServer({ token: true, tls: true });
      servers[name] = server;
      clients[name] = KubeClient.fromKubeConfig(server.kubeConfig);
    }
  });
  afterAll(async () => {
    for (const c of Object.values(clients)) c.close();
    for (const s of Object.values(servers)) await s.close();
  });

  it('reconciles each cluster’s objects with that cluster’s cache and client', async () => {
    const east = servers['east'] as ApiServer;
    const west = servers['west'] as ApiServer;
    east.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'default' }, data: { from: 'east' } });
    west.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'default' }, data: { from: 'west' } });
    west.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'west-only', namespace: 'default' }, data: { from: 'west' } });
    const seen: Request[] = [];
    const westFactory = new InformerFactory(clients['west'] as KubeClient, { namespace: 'default' });
    const ctrl = controller({
      name: 'multi-cluster-mirror',
      for: resources.configMaps,
      owns: [resources.secrets],
      clusters: { east: clients['east'] as KubeClient, west: { client: clients['west'] as KubeClient, informers: westFactory } },
      needLeaderElection: false,
      reconcile: async (req, ctx) => {
        seen.push(req);
        const cm = ctx.object;
        if (cm === undefined) return;
        const secrets = ctx.objects(resources.secrets, req.namespace);
        const want = { from: Buffer.from(String(cm.data?.['from'])).toString('base64') };
        const existing = await secrets.get(`mirror-${req.name}`).catch(() => undefined);
        if (existing === undefined) {
          await secrets.create({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: {
              name: `mirror-${req.name}`,
              namespace: req.namespace,
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: req.name, uid: cm.metadata?.uid ?? '', controller: true }],
            },
            data: want,
          });
        }
      },
    });
    const stop = new AbortController();
    const done = ctrl.start(stop.signal);
    const mirror = (s: ApiServer, name: string) => s.get('v1', 'Secret', `mirror-${name}`, 'default');
    await until(() => mirror(east, 'shared') !== undefined && mirror(west, 'shared') !== undefined && mirror(west, 'west-only') !== undefined);
    expect(Buffer.from((mirror(east, 'shared')?.['data'] as Record<string, string>)['from'] ?? '', 'base64').toString()).toBe('east');
    expect(Buffer.from((mirror(west, 'shared')?.['data'] as Record<string, string>)['from'] ?? '', 'base64').toString()).toBe('west');
    expect(mirror(east, 'west-only')).toBeUndefined();
    expect(seen).toContainEqual({ cluster: 'east', namespace: 'default', name: 'shared' });
    expect(seen).toContainEqual({ cluster: 'west', namespace: 'default', name: 'shared' });
    expect(seen.every((r) => r.cluster === 'east' || r.cluster === 'west')).toBe(true);
    // The given west factory was used; east got its own.
    expect(westFactory.list().map((i) => i.name).sort()).toEqual(['ConfigMap/default', 'Secret/default']);

    // An owned object's event in one cluster reconciles its owner in that cluster only.
    const before = seen.length;
    west.delete('v1', 'Secret', 'mirror-shared', 'default');
    await until(() => mirror(west, 'shared') !== undefined && seen.length > before);
    expect(seen.slice(before).filter((r) => r.name === 'shared').map((r) => r.cluster)).toContain('west');
    expect(seen.slice(before).some((r) => r.cluster === 'east' && r.name === 'shared')).toBe(false);
    stop.abort();
    await done;
  });

  it('refuses sources (clusters need resource types) and bad cluster names', () => {
    const f = new InformerFactory(clients['east'] as KubeClient);
    expect(() =>
      controller({ name: 'mc-bad-1', for: informerSource(f.configMaps()), clusters: { east: clients['east'] as KubeClient }, reconcile: () => undefined }),
    ).toThrow(ControllerBuildError);
    expect(() => controller({ name: 'mc-bad-2', for: resources.configMaps, clusters: { 'a:b': clients['east'] as KubeClient }, reconcile: () => undefined })).toThrow(
      /cluster name/,
    );
    expect(() => controller({ name: 'mc-bad-3', for: resources.configMaps, clusters: {}, reconcile: () => undefined })).toThrow(/at least one/);
  });
});
