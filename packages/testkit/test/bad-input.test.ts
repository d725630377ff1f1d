import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

describe('embedded API server: bad input gets the right Status and changes nothing', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';
  let snapshot: () => Promise<string>;

  beforeAll(async () => {
    server = await startApiServer({ maxBodyBytes: 10_000 });
    call = makeClient(server.url);
    await call('POST', cms, { metadata: { name: 'keep', labels: { a: 'b' } }, data: { k: 'v' } });
    snapshot = async () => JSON.stringify([(await call('GET', '/api/v1/configmaps')).body.items, server.resourceVersion]);
  });
  afterAll(() => server.close());

  const cases: [string, () => Promise<{ status: number; body: { reason?: string; kind?: string } }>, number, string][] = [
    ['malformed JSON on create', () => call('POST', cms, '{"metadata": {"name": "x"'), 400, 'BadRequest'],
    ['a JSON array on create', () => call('POST', cms, '[1,2]'), 400, 'BadRequest'],
    ['an empty body on create', () => call('POST', cms, ''), 400, 'BadRequest'],
    ['malformed JSON on update', () => call('PUT', `${cms}/keep`, '{oops'), 400, 'BadRequest'],
    ['malformed JSON patch', () => call('PATCH', `${cms}/keep`, '{oops', 'application/merge-patch+json'), 400, 'BadRequest'],
    ['an unknown patch type', () => call('PATCH', `${cms}/keep`, '{}', 'text/plain'), 415, 'UnsupportedMediaType'],
    ['a JSON patch whose test fails', () => call('PATCH', `${cms}/keep`, [{ op: 'test', path: '/data/k', value: 'nope' }, { op: 'remove', path: '/data' }], 'application/json-patch+json'), 422, 'Invalid'],
    ['a wrong kind', () => call('POST', cms, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } }), 400, 'BadRequest'],
    ['a wrong apiVersion', () => call('POST', cms, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } }), 400, 'BadRequest'],
    ['a wrong kind on update', () => call('PUT', `${cms}/keep`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'keep' } }), 400, 'BadRequest'],
    ['a name that is not a DNS subdomain', () => call('POST', cms, { metadata: { name: 'Bad_Name' } }), 422, 'Invalid'],
    ['an unknown resource', () => call('GET', '/api/v1/namespaces/default/widgets'), 404, 'NotFound'],
    ['an unknown group', () => call('POST', '/apis/example.com/v1/namespaces/default/widgets', { metadata: { name: 'x' } }), 404, 'NotFound'],
    ['a malformed URL escape', () => call('GET', '/api/v1/namespaces/%zz/configmaps'), 404, 'NotFound'],
    ['a watch with a bad timeoutSeconds', () => call('GET', `${cms}?watch=1&timeoutSeconds=soon`), 400, 'BadRequest'],
    ['an unknown version', () => call('GET', '/apis/apps/v9/deployments'), 404, 'NotFound'],
    ['an oversized body', () => call('POST', cms, { metadata: { name: 'big' }, data: { x: 'y'.repeat(20_000) } }), 413, 'RequestEntityTooLarge'],
    ['a bad label selector', () => call('GET', `${cms}?labelSelector=${encodeURIComponent('a in (b')}`), 400, 'BadRequest'],
    ['a bad label key', () => call('GET', `${cms}?labelSelector=${encodeURIComponent('-a=b')}`), 400, 'BadRequest'],
    ['a bad field selector', () => call('GET', `${cms}?fieldSelector=nonsense`), 400, 'BadRequest'],
    ['an unsupported field', () => call('GET', `${cms}?fieldSelector=spec.nodeName=x`), 400, 'BadRequest'],
    ['a bad selector on watch', () => call('GET', `${cms}?watch=1&labelSelector=${encodeURIComponent('=x')}`), 400, 'BadRequest'],
    ['a bad limit', () => call('GET', `${cms}?limit=abc`), 400, 'BadRequest'],
    ['a bad resourceVersion', () => call('GET', `${cms}?resourceVersion=abc&resourceVersionMatch=Exact`), 400, 'BadRequest'],
    ['a name mismatch on update', () => call('PUT', `${cms}/keep`, { metadata: { name: 'other' } }), 400, 'BadRequest'],
    ['a method not allowed', () => call('PUT', cms, { metadata: { name: 'x' } }), 405, 'MethodNotAllowed'],
    ['an update of a missing object', () => call('PUT', `${cms}/missing`, { metadata: { name: 'missing' } }), 404, 'NotFound'],
    ['a strategic merge patch on a missing object', () => call('PATCH', `${cms}/missing`, '{}', 'application/strategic-merge-patch+json'), 404, 'NotFound'],
  ];

  for (const [title, act, code, reason] of cases) {
    it(`${title} → ${code} ${reason}`, async () => {
      const before = await snapshot();
      const r = await act();
      expect(r.status).toBe(code);
      expect(r.body).toMatchObject({ kind: 'Status', reason, code });
      expect(await snapshot()).toBe(before);
    });
  }

  it('survives garbage after all of that', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
    expect((await call('GET', `${cms}/keep`)).body.data).toEqual({ k: 'v' });
  });

  it('random non-object bodies, selectors and paths never give 5xx and change nothing', async () => {
    const before = await snapshot();
    const notAnObject = fc.string().filter((t) => {
      try {
        const v: unknown = JSON.parse(t);
        return typeof v !== 'object' || v === null || Array.isArray(v);
      } catch {
        return true;
      }
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'PUT', 'PATCH'),
        fc.constantFrom(cms, `${cms}/keep`, '/api/v1/namespaces', '/apis/apps/v1/namespaces/default/deployments'),
        fc.constantFrom('application/json', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'),
        notAnObject,
        async (method, path, type, body) => {
          const r = await call(method, path, body, type);
          expect(r.status).toBeGreaterThanOrEqual(400);
          expect(r.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (label, field) => {
        const r = await call('GET', `${cms}?labelSelector=${encodeURIComponent(label)}&fieldSelector=${encodeURIComponent(field)}`);
        expect([200, 400]).toContain(r.status);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ minLength: 1 }), { maxLength: 6 }), async (segs) => {
        const r = await call('GET', `/${segs.map(encodeURIComponent).join('/')}`);
        expect(r.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    expect(await snapshot()).toBe(before);
  });
});
