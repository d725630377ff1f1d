/**
 * Hostile and misconfigured servers: errors that point at the fix. A client pointed at something
 * that is not a Kubernetes API server (an HTML page, a proxy's plain text) is told so, naming the
 * server and the request, while a real kube-apiserver 404 stays a plain NotFound. A 401 names the
 * kubeconfig identity whose credentials were refused, never the credential. A 403 in
 * kube-apiserver's format names the user, verb, resource and namespace and suggests the RBAC rule
 * that allows it; a reflector stopped by it names the informer, the resource and the server.
 * Both transports (KubeConnection, FetchConnection) are checked.
 */
import type http from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { ApiError, isNotFound } from '../../src/client/api-error.js';
import { fetchClient } from '../../src/client/fetch-client.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { reflector } from '../../src/reflector/reflector.js';
import { ReflectorFatalError } from '../../src/reflector/reflector-errors.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { kubeForbidden, kubeNotFound, kubeUnauthorized, rawAnswer, startFakeApiServer, type FakeApiServer } from './fake-api-server.js';

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let answer: Answer = (_req, res) => kubeUnauthorized(res);
let server: FakeApiServer;

beforeAll(async () => {
  server = await startFakeApiServer((req, res) => answer(req, res));
});
afterAll(async () => {
  await server.close();
});

const CLIENTS: ReadonlyArray<readonly [string, () => KubeClient, string]> = [
  ['node (KubeConnection)', () => KubeClient.fromKubeConfig(server.kubeConfig, { retry: false }), 'kubeconfig user "hostile" (a bearer token)'],
  ['fetch (FetchConnection)', () => fetchClient({ server: server.url, token: server.token, retry: false }), 'the client (a bearer token)'],
];

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

function everything(err: unknown): string {
  return [String(err), inspect(err, { depth: 10 }), JSON.stringify(err)].join('\n');
}

describe.each(CLIENTS)('errors that point at the fix, %s', (_name, makeClient, identity) => {
  let client: KubeClient;
  beforeAll(() => {
    client = makeClient();
  });
  afterAll(() => client.close());

  const getPod = (): Promise<ApiError> => failure(client.objects(resources.pods, 'default').get('a'));

  it('an HTML 404 says the server is not a Kubernetes API server, naming it and the request', async () => {
    answer = (_req, res) => rawAnswer(res, 404, '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>nginx</p></body></html>', 'text/html');
    const err = await getPod();
    expect(err.code).toBe('API_NOT_FOUND');
    expect(isNotFound(err)).toBe(true);
    expect(err.bodyShape).toBe('html');
    expect(err.notKubernetes).toBe(true);
    expect(err.message).toContain(`(GET ${server.url}/api/v1/namespaces/default/pods/a)`);
    expect(err.message).toContain('an HTML page titled "404 Not Found"');
    expect(err.hint).toContain(`${server.url} is not a Kubernetes API server`);
    expect(err.hint).toContain(`GET ${server.url}/version`);
    expect(err.message).toContain(err.hint);
    expect(err.message).not.toContain('<body>');
  });

  it('a plain-text 404 of a proxy says so too', async () => {
    answer = (_req, res) => rawAnswer(res, 404, 'Cannot GET /api/v1/namespaces/default/pods/a', 'text/plain; charset=utf-8');
    const err = await getPod();
    expect(err.code).toBe('API_NOT_FOUND');
    expect(err.bodyShape).toBe('text');
    expect(err.notKubernetes).toBe(true);
    expect(err.message).toContain('Cannot GET /api/v1/namespaces/default/pods/a');
    expect(err.hint).toContain(`${server.url} is not a Kubernetes API server, or something in front of it answered: it sent plain text`);
  });

  it('Go\'s "404 page not found" may be kube-apiserver for an unserved group: both causes are named', async () => {
    answer = (_req, res) => rawAnswer(res, 404, '404 page not found\n', 'text/plain; charset=utf-8');
    const err = await getPod();
    expect(err.notKubernetes).toBe(false);
    expect(err.hint).toContain('an API group or version it does not serve');
    expect(err.hint).toContain(`or ${server.url} is not a Kubernetes API server`);
  });

  it('a real kube-apiserver 404 stays a plain NotFound, without a hint', async () => {
    answer = (_req, res) => kubeNotFound(res, 'pods', 'a');
    const err = await getPod();
    expect(err).toMatchObject({ code: 'API_NOT_FOUND', statusCode: 404, reason: 'NotFound', bodyShape: 'status', notKubernetes: false, hint: undefined });
    expect(isNotFound(err)).toBe(true);
    expect(err.message).toBe(`404 NotFound: pods "a" not found (GET ${server.url}/api/v1/namespaces/default/pods/a)`);
  });

  it('a 401 names the server, the request and the kubeconfig identity, never the token', async () => {
    answer = (_req, res) => kubeUnauthorized(res);
    const err = await failure(client.objects(resources.pods, 'default').list());
    expect(err.code).toBe('API_UNAUTHORIZED');
    expect(err.message).toContain(`(GET ${server.url}/api/v1/namespaces/default/pods)`);
    expect(err.hint).toContain(`${server.url} did not accept the credentials of ${identity}`);
    expect(err.hint).toContain('expired');
    expect(everything(err)).not.toContain(server.token);
  });

  it('a 403 of kube-apiserver names user, verb, resource and namespace and suggests a Role rule', async () => {
    answer = (_req, res) => kubeForbidden(res, { user: 'system:serviceaccount:ops:reconciler', verb: 'list', resource: 'pods', group: '', namespace: 'default' });
    const err = await failure(client.objects(resources.pods, 'default').list());
    expect(err.code).toBe('API_FORBIDDEN');
    expect(err.denied).toEqual({ user: 'system:serviceaccount:ops:reconciler', verb: 'list', resource: 'pods', apiGroup: '', namespace: 'default' });
    expect(err.rbacRule).toMatchObject({
      role: 'Role',
      binding: 'RoleBinding',
      namespace: 'default',
      rule: { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      subject: { kind: 'ServiceAccount', namespace: 'ops', name: 'reconciler' },
    });
    expect(err.rbacRule?.yaml).toBe('- apiGroups: [""]\n  resources: ["pods"]\n  verbs: ["list"]');
    expect(err.message).toContain(`(GET ${server.url}/api/v1/namespaces/default/pods)`);
    expect(err.message).toContain('ServiceAccount ops/reconciler may not list pods in namespace default.');
    expect(err.message).toContain('add this rule to a Role in namespace default and bind that Role to ServiceAccount ops/reconciler with a RoleBinding:\n    - apiGroups: [""]\n      resources: ["pods"]\n      verbs: ["list"]');
  });

  it('a 403 at the cluster scope suggests a ClusterRole and a ClusterRoleBinding', async () => {
    answer = (_req, res) => kubeForbidden(res, { user: 'alice@example.com', verb: 'watch', resource: 'deployments', group: 'apps' });
    const err = await failure(client.objects(resources.deployments).list());
    expect(err.rbacRule).toMatchObject({ role: 'ClusterRole', binding: 'ClusterRoleBinding', rule: { apiGroups: ['apps'], resources: ['deployments'], verbs: ['watch'] }, subject: { kind: 'User', name: 'alice@example.com' } });
    expect(err.rbacRule?.namespace).toBeUndefined();
    expect(err.message).toContain('User "alice@example.com" may not watch deployments.apps at the cluster scope.');
  });

  it('a 403 of an anonymous request points at the credentials, not at RBAC', async () => {
    answer = (_req, res) => kubeForbidden(res, { user: 'system:anonymous', verb: 'get', resource: 'pods', group: '', namespace: 'default', name: 'a' });
    const err = await getPod();
    expect(err.denied?.user).toBe('system:anonymous');
    expect(err.rbacRule).toBeUndefined();
    expect(err.hint).toContain('The server saw no credentials');
  });

  it('a hostile 403 cannot smuggle text into a suggested rule, nor the token into anything', async () => {
    answer = (_req, res) => kubeForbidden(res, { user: `x"\n- apiGroups: ["*"] ${server.token}`, verb: 'list', resource: 'pods', group: '', namespace: 'default' });
    const err = await failure(client.objects(resources.pods, 'default').list());
    expect(err.rbacRule).toBeUndefined();
    expect(everything(err)).not.toContain(server.token);
    answer = (_req, res) => kubeForbidden(res, { user: 'bob', verb: 'list', resource: `pods"]\n  verbs: ["*`, group: '', namespace: 'default' });
    expect((await failure(client.objects(resources.pods, 'default').list())).rbacRule).toBeUndefined();
  });

  it('a 403 that is not a Status blames the proxy in front, not RBAC', async () => {
    answer = (_req, res) => rawAnswer(res, 403, '<html><head><title>403 Forbidden</title></head></html>', 'text/html');
    const err = await getPod();
    expect(err.code).toBe('API_FORBIDDEN');
    expect(err.rbacRule).toBeUndefined();
    expect(err.hint).toContain(`a proxy, gateway or load balancer in front of ${server.url} refused the request`);
  });

  it('ReflectorFatalError names the informer, the resource, the server and the rule that lets it list and watch', async () => {
    answer = (_req, res) => kubeForbidden(res, { user: 'system:serviceaccount:ops:reconciler', verb: 'list', resource: 'pods', group: '', namespace: 'default' });
    const error = await new Promise<unknown>((resolve) => {
      reflector(client.listWatcher(resources.pods, { namespace: 'default' }), { name: 'pods', authRetries: 0 }).events$.subscribe({ error: resolve });
    });
    expect(error).toBeInstanceOf(ReflectorFatalError);
    const fatal = error as ReflectorFatalError;
    expect(fatal.code).toBe('REFLECTOR_FATAL');
    expect(fatal).toMatchObject({ informer: 'pods', server: server.url, target: { apiVersion: 'v1', kind: 'Pod', namespace: 'default' } });
    expect(fatal.message).toContain(`reflector of informer "pods" (v1 Pod in namespace default, server ${server.url}) stopped after 1 consecutive 403 answer: 403 Forbidden: pods is forbidden`);
    expect(fatal.rbacRule).toMatchObject({ role: 'Role', namespace: 'default', rule: { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] } });
    expect(fatal.message).toContain('verbs: ["list", "watch"]');
    expect(fatal.cause).toBeInstanceOf(ApiError);
  });

  it('an informer passes its name to its reflector', async () => {
    answer = (_req, res) => kubeUnauthorized(res);
    const informer = sharedInformer({ client, resource: resources.configMaps, scope: { namespace: 'default' }, listWatch: { authRetries: 0 } }, { name: 'config-maps' });
    const error = await new Promise<unknown>((resolve) => {
      informer.run$.subscribe({ error: resolve });
    });
    const fatal = (error instanceof ReflectorFatalError ? error : (error as Error).cause) as ReflectorFatalError;
    expect(fatal).toBeInstanceOf(ReflectorFatalError);
    expect(fatal.message).toContain(`reflector of informer "config-maps" (v1 ConfigMap in namespace default, server ${server.url}) stopped after 1 consecutive 401 answer`);
    expect(fatal.hint).toContain('did not accept the credentials');
    expect(everything(fatal)).not.toContain(server.token);
  });
});
