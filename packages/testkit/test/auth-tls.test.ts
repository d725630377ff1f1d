import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

describe('embedded API server: token auth and TLS', () => {
  let server: ApiServer;

  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: true });
  });
  afterAll(() => server.close());

  it('serves HTTPS verified by the generated CA and requires the bearer token', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.token).toMatch(/^[0-9a-f]{32}$/);
    const ok = await makeClient(server.url, { token: server.token, ca: server.caPem })('GET', '/api/v1/namespaces/default');
    expect(ok.status).toBe(200);
    const anon = await makeClient(server.url, { ca: server.caPem })('GET', '/api/v1/namespaces/default');
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    const wrong = await makeClient(server.url, { ca: server.caPem, token: 'nope' })('GET', '/api/v1/namespaces');
    expect(wrong.status).toBe(401);
    // health and version are open, as with kube-apiserver's anonymous access
    expect((await makeClient(server.url, { ca: server.caPem })('GET', '/healthz')).status).toBe(200);
  });

  it('is refused by a client that does not trust the CA', async () => {
    const err = await new Promise<Error>((resolve) => {
      const req = request(`${server.url}/version`, (res) => resolve(new Error(`unexpected ${res.statusCode}`)));
      req.on('error', resolve);
      req.end();
    });
    expect(String(err)).toMatch(/certificate/i);
  });

  it('ships a kubeconfig (YAML and KubeConfig) with server, CA and token', () => {
    const cluster = server.kubeConfig.getCurrentCluster();
    expect(cluster?.server).toBe(server.url);
    expect(Buffer.from(cluster?.caData ?? '', 'base64').toString()).toBe(server.caPem);
    expect(server.kubeConfig.getCurrentUser()?.token).toBe(server.token);
    expect(server.kubeconfigYaml).toContain(`server: ${server.url}`);
    expect(server.kubeconfigYaml).toContain(`token: ${server.token}`);
  });

  it('refuses a non-loopback host', async () => {
    await expect(startApiServer({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
  });
});
