/**
 * 429 with Retry-After from a real kube-apiserver, provoked by a server that takes one mutating
 * request at a time. Runs only against a server started for it (otherwise skipped):
 *
 *   KUBE_APISERVER_FLAGS="--max-mutating-requests-inflight=1 --enable-priority-and-fairness=false" \
 *     bash e2e.sh <repo> test/e2e/retry-after.test.ts
 *
 * (kube-apiserver's in-flight limit answers 429 TooManyRequests with `Retry-After: 1`; with
 * priority and fairness on, the default in 1.20, requests queue instead. The limit exempts
 * system:masters, so the test's requests impersonate an ordinary user bound to cluster-admin.)
 */
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { isTooManyRequests } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { hasCluster } from './helpers/cluster.js';

const throttled = (process.env['KUBE_APISERVER_FLAGS'] ?? '').includes('--max-mutating-requests-inflight=1');
const ns = `rxkube-retry-${randomBytes(3).toString('hex')}`;

describe.skipIf(!hasCluster || !throttled)('Retry-After from a throttled kube-apiserver', () => {
  let admin: KubeClient;
  let client: KubeClient;
  const user = `rxkube-retry-${randomBytes(3).toString('hex')}`;
  const BINDINGS = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' };
  beforeAll(async () => {
    admin = KubeClient.fromDefault();
    await admin.objects(BINDINGS).create({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: user },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    } as never);
    const kc = new KubeConfig();
    kc.loadFromDefault();
    kc.users = kc.users.map((u) => ({ ...u, impersonateUser: user }));
    // Retry-After is 1 s; 10 clients refused together come back spread over [1 s, 2 s) (jitter 1).
    client = KubeClient.fromKubeConfig(kc, { retry: { maxAttempts: 30, jitter: 1 } });
    await admin.objects(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(async () => {
    await admin?.objects(resources.namespaces).delete(ns, { ignoreNotFound: true });
    await admin?.objects(BINDINGS).delete(user, { ignoreNotFound: true });
    client?.close();
    admin?.close();
  });

  const burst = (n: number, tag: string, retry: false | undefined): Promise<PromiseSettledResult<unknown>[]> =>
    Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        client.objects(resources.configMaps, ns).create(
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${tag}-${i}` }, data: { payload: 'x'.repeat(50_000) } },
          retry === false ? { retry: false } : {},
        ),
      ),
    );

  it('without retries a burst of creates meets 429 TooManyRequests with Retry-After: 1', async () => {
    await Promise.all(Array.from({ length: 20 }, () => client.objects(resources.configMaps, ns).list({ limit: 1 }))); // open sockets
    const results = await burst(60, 'raw', false);
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every(isTooManyRequests)).toBe(true);
    expect(refused[0]).toMatchObject({ statusCode: 429, retryAfterSeconds: 1 });
  });

  it('with the retry policy every create of the same burst goes through (a create is retried on 429: the server did not act on it)', async () => {
    const results = await burst(10, 'retried', undefined);
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed).toEqual([]);
    expect((await client.objects(resources.configMaps, ns).list()).items.filter((c) => c.metadata?.name?.startsWith('retried-'))).toHaveLength(10);
  });
});
