import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const run = promisify(execFile);
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

describe('embedded API server: optional RBAC with token users', () => {
  let server: ApiServer;
  let admin: ReturnType<typeof makeClient>;
  let alice: ReturnType<typeof makeClient>;
  let bob: ReturnType<typeof makeClient>;

  beforeAll(async () => {
    // TLS: kubectl sends bearer tokens over HTTPS only.
    server = await startApiServer({ tls: true, rbac: { users: { 'alice-token': { name: 'alice' }, 'bob-token': { name: 'bob', groups: ['readers'] } } } });
    const ca = server.caPem as string;
    admin = makeClient(server.url, { token: server.token as string, ca });
    alice = makeClient(server.url, { token: 'alice-token', ca });
    bob = makeClient(server.url, { token: 'bob-token', ca });
  });
  afterAll(() => server.close());

  it('off by default: any request is allowed (no token needed)', async () => {
    const plain = await startApiServer();
    try {
      expect((await makeClient(plain.url)('GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
    } finally {
      await plain.close();
    }
  });

  it('the kubeconfig token is an admin; unknown tokens are 401; users without bindings get 403 with kube-apiserver\'s message', async () => {
    expect((await admin('GET', '/api/v1/namespaces/default/pods')).status).toBe(200);
    expect((await makeClient(server.url, { token: 'nope', ca: server.caPem as string })('GET', '/api/v1/pods')).status).toBe(401);
    const denied = await alice('GET', '/api/v1/namespaces/default/pods');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    const named = await alice('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(named.body.message).toBe('deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments" in API group "apps" in the namespace "default"');
    expect((await alice('GET', '/api/v1/nodes')).body.message).toBe('nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope');
    expect((await alice('GET', '/apis')).status).toBe(200); // discovery is open to authenticated users
  });

  it('a RoleBinding grants a Role in its namespace; a ClusterRoleBinding to a group grants everywhere', async () => {
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'cm-editor' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }] });
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'alice-cm' }, subjects: [{ kind: 'User', name: 'alice' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-editor' } });
    expect((await alice('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } })).status).toBe(201);
    expect((await alice('DELETE', '/api/v1/namespaces/default/configmaps/a')).status).toBe(403);
    expect((await alice('GET', '/api/v1/namespaces/kube-system/configmaps')).status).toBe(403);
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'reader' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }] });
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { metadata: { name: 'readers' }, subjects: [{ kind: 'Group', name: 'readers' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' } });
    expect((await bob('GET', '/api/v1/namespaces/kube-system/configmaps')).status).toBe(200);
    expect((await bob('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'b' } })).status).toBe(403);
  });

  it('SelfSubjectAccessReview answers for the requesting user', async () => {
    const review = (verb: string, ns: string) => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, resource: 'configmaps', namespace: ns } } });
    expect((await alice('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review('create', 'default'))).body.status.allowed).toBe(true);
    expect((await alice('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review('delete', 'default'))).body.status.allowed).toBe(false);
  });

  it.skipIf(!hasKubectl)('kubectl auth can-i follows the bindings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxkube-rbac-'));
    try {
      const kc = server.kubeconfigYaml.replace(/token: \S+/, 'token: alice-token');
      await writeFile(join(dir, 'kubeconfig'), kc);
      const env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') };
      expect((await run('kubectl', ['auth', 'can-i', 'create', 'configmaps'], { env })).stdout.trim()).toBe('yes');
      const no = await run('kubectl', ['auth', 'can-i', 'delete', 'configmaps'], { env }).catch((e: { stdout: string }) => e);
      expect(no.stdout.trim()).toBe('no');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
