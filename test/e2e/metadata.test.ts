/**
 * Metadata-only lists and watches against a real kube-apiserver, and the same requests against the
 * embedded API server: the shapes (kinds, item keys, bookmark kind, 406 for a mismatched view) must
 * agree; then a metadata-only informer over HTTP on the real server.
 */
import { randomBytes } from 'node:crypto';
import { firstValueFrom, filter, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { PartialObjectMetadata } from '../../src/api/kube-object.js';
import { ApiError } from '../../src/client/api-error.js';
import { METADATA_LIST_ACCEPT, METADATA_WATCH_ACCEPT } from '../../src/client/http-list-watcher.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { hasCluster, sleep } from './helpers/cluster.js';

interface Shape {
  list: unknown;
  item: unknown;
  get: unknown;
  listAsObject: unknown;
  getAsList: unknown;
  watch: unknown;
}

const keys = (o: unknown): string[] => (typeof o === 'object' && o !== null ? Object.keys(o).sort() : []);

async function shapeOf(client: KubeClient, ns: string): Promise<Shape> {
  const cms = client.objects(resources.configMaps, ns);
  await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: ns, labels: { l: '1' } }, data: { big: 'x'.repeat(500) } });
  await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns }, data: { big: 'x' } });
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const list = await client.connection.request<{ kind: string; apiVersion: string; metadata: Record<string, unknown>; items: Record<string, unknown>[] }>({ path, accept: METADATA_LIST_ACCEPT, query: { limit: 1 } });
  const get = await client.connection.request<Record<string, unknown>>({ path: `${path}/a`, accept: METADATA_WATCH_ACCEPT });
  const status = (p: Promise<unknown>) => p.then(() => 200, (e: unknown) => (e instanceof ApiError ? [e.statusCode, e.reason] : String(e)));
  const listAsObject = await status(client.connection.request({ path, accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' }));
  const getAsList = await status(client.connection.request({ path: `${path}/a`, accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' }));
  const lw = client.listWatcher(resources.configMaps, { namespace: ns, metadataOnly: true });
  const events = firstValueFrom(lw.watch({ resourceVersion: list.metadata['resourceVersion'] as string, allowWatchBookmarks: true, timeoutSeconds: 30 }).pipe(filter((e) => e.type !== 'BOOKMARK'), take(3), toArray()));
  await sleep(300);
  await cms.patch('a', { metadata: { labels: { l: '2' } } }, 'merge');
  await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: ns }, data: { big: 'x' } });
  await cms.delete('b');
  const seen = await events;
  return {
    list: { kind: list.kind, apiVersion: list.apiVersion, metaKeys: keys(list.metadata).filter((k) => k !== 'remainingItemCount'), n: list.items.length },
    item: { kind: list.items[0]?.['kind'], apiVersion: list.items[0]?.['apiVersion'], keys: keys(list.items[0]), data: list.items[0]?.['data'] },
    get: { kind: get['kind'], keys: keys(get) },
    listAsObject,
    getAsList,
    watch: seen.map((e) => [e.type, e.object.kind, e.object.apiVersion, keys(e.object), (e.object.metadata as { name?: string } | undefined)?.name]),
  };
}

describe.skipIf(!hasCluster)('metadata-only lists and watches on a real kube-apiserver', () => {
  let real: KubeClient;
  let server: ApiServer;
  let embedded: KubeClient;
  const ns = `rxkube-meta-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    real = KubeClient.fromDefault();
    await real.objects(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    server = await startApiServer({ kubernetesVersion: '1.20' }); // compared with a real 1.20
    embedded = KubeClient.fromKubeConfig(server.kubeConfig);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(async () => {
    await real?.objects(resources.namespaces).delete(ns).catch(() => undefined);
    real?.close();
    embedded?.close();
    await server?.close();
  });

  it('the embedded server answers metadata-only requests as the real one does', async () => {
    const want = await shapeOf(real, ns);
    const got = await shapeOf(embedded, ns);
    expect(want.item).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', keys: ['apiVersion', 'kind', 'metadata'] });
    expect(got).toEqual(want);
  });

  it('a metadata-only informer lists and watches PartialObjectMetadata over HTTP', async () => {
    const factory = new InformerFactory(real, { namespace: ns });
    const informer = factory.metadata(resources.configMaps);
    factory.start();
    expect(await factory.waitForCacheSync(20_000)).toBe(true);
    const cached = informer.store.list() as PartialObjectMetadata[];
    expect(cached.length).toBeGreaterThan(0);
    for (const o of cached) expect(keys(o)).toEqual(['apiVersion', 'kind', 'metadata']);
    await real.objects(resources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: ns }, data: { x: 'y' } });
    const end = Date.now() + 10_000;
    while (informer.store.get(`${ns}/late`) === undefined && Date.now() < end) await sleep(50);
    expect(informer.store.get(`${ns}/late`)).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'late' } });
    factory.stop();
  });
});
