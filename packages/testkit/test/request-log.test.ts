import { describe, expect, it } from 'vitest';
import { RequestLog } from '../src/api-server/request-log.js';
import { encodeObject } from '../src/api-server/protobuf/codec.js';
import { startApiServer } from '@rxkube/testkit';

const PB = 'application/vnd.kubernetes.protobuf';

describe('RequestLog', () => {
  it('counts by method, path (exact or RegExp), watch and resource', () => {
    const log = new RequestLog();
    log.record('GET', '/api/v1/pods', '?watch=1', true, '/pods');
    log.record('GET', '/api/v1/pods', '', false, '/pods');
    log.record('POST', '/api/v1/namespaces/a/configmaps', '', false, '/configmaps');
    expect(log.count()).toBe(3);
    expect(log.count({ method: 'get' })).toBe(2);
    expect(log.count({ watch: true, resourceId: '/pods' })).toBe(1);
    expect(log.count({ path: /configmaps$/ })).toBe(1);
    expect(log.count({ path: '/api/v1/pods' })).toBe(2);
    log.clear();
    expect(log.all()).toEqual([]);
  });

  it('keeps only the newest records beyond its limit', () => {
    const log = new RequestLog(10);
    for (let i = 0; i < 100; i++) log.record('GET', `/p${i}`, '', false, undefined);
    const all = log.all();
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(all.length).toBeLessThanOrEqual(13);
    expect(all[all.length - 1]?.path).toBe('/p99');
  });

  it('keeps the body media type (parameters dropped) and the Accept header; filters by media type', () => {
    const log = new RequestLog();
    log.record('PUT', '/apis/coordination.k8s.io/v1/namespaces/a/leases/l', '', false, 'coordination.k8s.io/leases', PB, `${PB},application/json`);
    log.record('GET', '/api/v1/pods', '', false, '/pods');
    expect(log.all()[0]).toMatchObject({ contentType: PB, accept: `${PB},application/json` });
    expect(log.all()[1]).toMatchObject({ contentType: '', accept: '' });
    expect(log.count({ contentType: PB })).toBe(1);
    expect(log.count({ contentType: '' })).toBe(1);
  });

  it('the server records what each HTTP request sent (a protobuf create, a JSON patch)', async () => {
    const server = await startApiServer();
    try {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } };
      const created = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST', headers: { 'Content-Type': `${PB}; charset=binary`, Accept: `${PB}, application/json` }, body: encodeObject(cm),
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('content-type')).toBe(PB);
      const patched = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/c`, {
        method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: '{"data":{"a":"2"}}',
      });
      expect(patched.status).toBe(200);
      const records = server.requests.filter({ resourceId: '/configmaps' });
      expect(records.map((r) => [r.method, r.contentType, r.accept])).toEqual([
        ['POST', PB, `${PB}, application/json`],
        ['PATCH', 'application/merge-patch+json', '*/*'], // fetch's default Accept
      ]);
      expect(server.requests.count({ contentType: PB })).toBe(1);
    } finally {
      await server.close();
    }
  });
});
