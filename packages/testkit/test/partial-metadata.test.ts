import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metadataView } from '../src/api-server/partial-metadata.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

const LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const ONE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

describe('PartialObjectMetadata responses (metadata-only clients)', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;

  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 50 });
    call = makeClient(server.url);
    server.seed([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', labels: { x: '1' } }, data: { big: 'payload' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default' }, data: { big: 'payload' } },
    ]);
  });
  afterAll(() => server.close());

  it('reads the view from the Accept header', () => {
    expect(metadataView(LIST)).toBe('list');
    expect(metadataView(ONE)).toBe('object');
    expect(metadataView('application/json')).toBeUndefined();
    expect(metadataView('application/json;as=PartialObjectMetadata;g=example.com;v=v1')).toBeUndefined();
    expect(metadataView('application/json;as=Table;g=meta.k8s.io;v=v1')).toBeUndefined();
  });

  it('lists as PartialObjectMetadataList with paging; plain JSON otherwise', async () => {
    const page1 = await call('GET', '/api/v1/namespaces/default/configmaps?limit=1', undefined, 'application/json', { Accept: LIST });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: expect.any(String), continue: expect.any(String) } });
    expect(page1.body.items).toEqual([{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'a', labels: { x: '1' } }) }]);
    const page2 = await call('GET', `/api/v1/namespaces/default/configmaps?limit=1&continue=${encodeURIComponent(page1.body.metadata.continue)}`, undefined, 'application/json', { Accept: LIST });
    expect(page2.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['b']);
    expect(page2.body.items[0].data).toBeUndefined();
    expect((await call('GET', '/api/v1/namespaces/default/configmaps')).body.kind).toBe('ConfigMapList');
  });

  it('gets one object as PartialObjectMetadata; a mismatched view is 406', async () => {
    const one = await call('GET', '/api/v1/namespaces/default/configmaps/a', undefined, 'application/json', { Accept: ONE });
    expect(one.body).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'a' }) });
    const listAsOne = await call('GET', '/api/v1/namespaces/default/configmaps', undefined, 'application/json', { Accept: ONE });
    expect(listAsOne.status).toBe(406);
    expect(listAsOne.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable' });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/a', undefined, 'application/json', { Accept: LIST })).status).toBe(406);
  });

  it('watches as PartialObjectMetadata events, bookmarks included', async () => {
    const list = await call('GET', '/api/v1/namespaces/default/configmaps', undefined, 'application/json', { Accept: LIST });
    const w = await openWatch(server.url, `/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${list.body.metadata.resourceVersion}`, { headers: { Accept: ONE } });
    server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { big: 'payload' } }]);
    const [added] = await w.next(1);
    expect(added).toEqual({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'c' }) } });
    server.delete('v1', 'ConfigMap', 'c', 'default');
    const [deleted] = await w.next(1);
    expect(deleted).toMatchObject({ type: 'DELETED', object: { kind: 'PartialObjectMetadata', metadata: { name: 'c' } } });
    expect(deleted?.object['data']).toBeUndefined();
    await new Promise((r) => setTimeout(r, 150));
    server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd', namespace: 'default' } }]);
    const more = await w.next(1);
    const bookmark = [...w.all].find((e) => e.type === 'BOOKMARK');
    if (bookmark !== undefined) expect(bookmark.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(more[0]?.object['kind']).toBe('PartialObjectMetadata');
    w.close();
  });
});
