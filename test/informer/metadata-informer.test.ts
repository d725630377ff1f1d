/**
 * Metadata-only informers (`InformerFactory.metadata`) against the embedded API server: the cache
 * holds PartialObjectMetadata (no spec, data or status), follows changes, is shared per resource,
 * and serves as a controller's `owns` source.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartialObjectMetadata } from '../../src/api/kube-object.js';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { controller } from '../../src/controller/controller.js';
import { informerSource } from '../../src/controller/informer-source.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import type { Request } from '../../src/workqueue/request.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';

const NS = 'meta';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('metadata-only informers', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: true, bookmarkIntervalMs: 100 });
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('caches PartialObjectMetadata and follows adds, updates and deletes', async () => {
    for (let i = 0; i < 5; i++)
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: NS, labels: { i: String(i) } }, data: { payload: 'x'.repeat(1000) } });
    const factory = new InformerFactory(client, { namespace: NS });
    const informer = factory.metadata(resources.configMaps);
    expect(factory.metadata(resources.configMaps)).toBe(informer);
    expect(factory.configMaps()).not.toBe(informer);
    expect(informer.resource).toBe(resources.configMaps);
    factory.start();
    expect(await factory.waitForCacheSync(10_000)).toBe(true);
    const cached = informer.store.list() as PartialObjectMetadata[];
    expect(cached).toHaveLength(5);
    for (const o of cached) {
      expect(o).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata' });
      expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(o.metadata?.managedFields).toBeUndefined();
    }
    await client.objects(resources.configMaps, NS).patch('cm-1', { metadata: { labels: { i: 'changed' } } }, 'merge');
    await client.objects(resources.configMaps, NS).delete('cm-2');
    await client.objects(resources.configMaps, NS).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-new', namespace: NS }, data: { a: 'b' } });
    await until(() => informer.store.get(`${NS}/cm-1`)?.metadata?.labels?.['i'] === 'changed' && informer.store.get(`${NS}/cm-2`) === undefined && informer.store.get(`${NS}/cm-new`) !== undefined);
    expect(informer.store.get(`${NS}/cm-new`)?.kind).toBe('PartialObjectMetadata');
    factory.stop();
  });

  it('is usable as a controller owns source (informer or { source, metadataOnly })', async () => {
    const owner = server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'owner', namespace: NS }, data: {} });
    const uid = owner.metadata?.uid ?? '';
    const factory = new InformerFactory(client, { namespace: NS });
    const seen: Request[] = [];
    const seenOwned = new Set<string>();
    const ctrlA = controller({
      name: 'meta-owns-a',
      for: resources.secrets,
      owns: [{ source: resources.configMaps, metadataOnly: true }],
      informers: factory,
      needLeaderElection: false,
      reconcile: (req) => {
        seen.push(req);
      },
    });
    const ctrlB = controller({
      name: 'meta-owns-b',
      for: resources.secrets,
      owns: [informerSource(factory.metadata(resources.configMaps))],
      informers: factory,
      needLeaderElection: false,
      reconcile: (req) => {
        seenOwned.add(req.name);
      },
    });
    // Both controllers share the one metadata informer; the full ConfigMap informer is not created by them.
    const kinds = factory.list().map((i) => i.name).sort();
    expect(kinds.filter((n) => n.startsWith('ConfigMap'))).toEqual([`ConfigMap(metadata)/${NS}`]);
    const stop = new AbortController();
    factory.start();
    const done = Promise.all([ctrlA.start(stop.signal), ctrlB.start(stop.signal)]);
    await until(() => seen.some((r) => r.name === 'owner'));
    const before = seen.length;
    server.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'owner', uid, controller: true }] },
      data: { big: 'y'.repeat(100) },
    });
    await until(() => seen.length > before && seenOwned.has('owner'));
    expect(seen.at(-1)).toMatchObject({ name: 'owner', namespace: NS });
    stop.abort();
    await done;
    factory.stop();
  });
});
