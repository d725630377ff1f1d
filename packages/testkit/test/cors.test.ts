import { afterEach, describe, expect, it } from 'vitest';
import { ApiServerConfigError, startApiServer, type ApiServer } from '../src/index.js';
import { request } from 'node:http';
import { makeClient } from './helpers.js';

let server: ApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PAGE = 'http://localhost:5173';

describe('embedded API server: CORS', () => {
  it('is off by default: no CORS headers, a preflight is not answered as one', async () => {
    server = await startApiServer({ token: 't' });
    const call = makeClient(server.url, { token: 't' });
    const get = await call('GET', '/api/v1/namespaces', undefined, undefined, { Origin: PAGE });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await makeClient(server.url)('OPTIONS', '/api/v1/namespaces', undefined, undefined, { Origin: PAGE, 'Access-Control-Request-Method': 'GET' });
    expect(pre.status).not.toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight of an allowed origin before authentication, with the verbs and headers clients send', async () => {
    server = await startApiServer({ token: 't', cors: { origins: [PAGE] } });
    const pre = await makeClient(server.url)('OPTIONS', '/api/v1/namespaces/default/pods?watch=true', undefined, undefined, {
      Origin: PAGE,
      'Access-Control-Request-Method': 'PATCH',
      'Access-Control-Request-Headers': 'authorization, content-type',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(PAGE);
    expect(pre.headers['access-control-allow-credentials']).toBe('true');
    const methods = String(pre.headers['access-control-allow-methods']).split(', ');
    expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    const headers = String(pre.headers['access-control-allow-headers']).toLowerCase().split(', ');
    expect(headers).toEqual(expect.arrayContaining(['authorization', 'content-type', 'accept']));
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect(pre.headers['vary']).toBe('Origin');
    // The preflight is not an API request.
    expect(server.requests.all().filter((r) => r.method === 'OPTIONS')).toHaveLength(0);
  });

  it('puts the CORS headers on API answers (also errors and watches) and exposes Retry-After and Warning', async () => {
    server = await startApiServer({ token: 't', cors: { origins: ['http://other.example', PAGE] } });
    const call = makeClient(server.url, { token: 't' });
    const ok = await call('GET', '/api/v1/namespaces/default', undefined, undefined, { Origin: PAGE });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(PAGE);
    expect(String(ok.headers['access-control-expose-headers'])).toMatch(/Retry-After/);
    expect(String(ok.headers['access-control-expose-headers'])).toMatch(/Warning/);
    const unauthorized = await makeClient(server.url)('GET', '/api/v1/pods', undefined, undefined, { Origin: PAGE });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(PAGE);
    const watchHeaders = await new Promise<{ status: number; allow: unknown }>((resolve, reject) => {
      const req = request(`${server?.url}/api/v1/namespaces/default/pods?watch=true`, { headers: { Origin: PAGE, Authorization: 'Bearer t' } }, (res) => {
        resolve({ status: res.statusCode ?? 0, allow: res.headers['access-control-allow-origin'] });
        req.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    expect(watchHeaders).toEqual({ status: 200, allow: PAGE });
  });

  it('gives an origin that is not allowed no CORS headers, and refuses its preflight', async () => {
    server = await startApiServer({ cors: { origins: [PAGE] } });
    const call = makeClient(server.url);
    const get = await call('GET', '/api/v1/namespaces', undefined, undefined, { Origin: 'http://evil.example' });
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await call('OPTIONS', '/api/v1/namespaces', undefined, undefined, { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'DELETE' });
    expect(pre.status).toBe(403);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(pre.text).toMatch(/http:\/\/evil\.example is not allowed/);
  });

  it("'*' allows every origin by echoing it (credentials forbid a literal *)", async () => {
    server = await startApiServer({ cors: { origins: ['*'], allowHeaders: ['X-Trace'] } });
    const pre = await makeClient(server.url)('OPTIONS', '/apis', undefined, undefined, { Origin: 'http://any.example:8080', 'Access-Control-Request-Method': 'GET' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://any.example:8080');
    expect(String(pre.headers['access-control-allow-headers'])).toMatch(/X-Trace/);
  });

  it('refuses origins that are not origins, and an empty list', async () => {
    for (const origins of [['http://localhost:5173/'], ['localhost:5173'], ['http://localhost:5173/app'], ['file:///tmp'], []]) {
      await expect(startApiServer({ cors: { origins } })).rejects.toBeInstanceOf(ApiServerConfigError);
    }
    await expect(startApiServer({ cors: { origins: [PAGE], allowHeaders: ['bad header'] } })).rejects.toThrow(/not a header name/);
  });
});
