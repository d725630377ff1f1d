import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { humanDuration } from '../src/api-server/table-view.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient, openWatch } from './helpers.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

describe('Table responses (kubectl get)', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;

  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
    server.seed([
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'a', image: 'a' }, { name: 'b', image: 'b' }] }, status: { phase: 'Running', containerStatuses: [{ ready: true, restartCount: 2 }, { ready: false, restartCount: 1 }] } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { x: '1' } },
    ]);
  });
  afterAll(() => server.close());

  it('lists as a Table with per-resource columns when asked, plain JSON otherwise', async () => {
    const t = await call('GET', '/api/v1/namespaces/default/pods', undefined, 'application/json', { Accept: TABLE });
    expect(t.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(t.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(t.body.rows[0].cells.slice(0, 4)).toEqual(['p', '1/2', 'Running', 3]);
    expect(t.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'p' } });
    const full = await call('GET', '/api/v1/namespaces/default/configmaps/c?includeObject=Object', undefined, 'application/json', { Accept: TABLE });
    expect(full.body.rows[0]).toMatchObject({ cells: ['c', 1, expect.any(String)], object: { kind: 'ConfigMap', data: { x: '1' } } });
    expect((await call('GET', '/api/v1/namespaces/default/pods')).body.kind).toBe('PodList');
  });

  it('watch events carry one-row Tables; only the first has column definitions', async () => {
    const w = await openWatch(server.url, '/api/v1/namespaces/default/configmaps?watch=1', { headers: { Accept: TABLE } });
    server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd', namespace: 'default' } }]);
    const events = await w.next(2);
    expect(events.map((e) => e.object['kind'])).toEqual(['Table', 'Table']);
    expect(events[0]?.object['columnDefinitions']).toBeDefined();
    expect(events[1]?.object['columnDefinitions']).toBeUndefined();
    w.close();
  });

  it('formats ages like kube', () => {
    expect([5_000, 150_000, 900_000, 3 * 3_600_000 + 60_000, 30 * 3_600_000, 3 * 86_400_000 + 3_600_000, 40 * 86_400_000].map(humanDuration)).toEqual(['5s', '2m30s', '15m', '3h1m', '30h', '3d1h', '40d']);
  });
});
