import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { apiErrorFromResponse, bodyShapeOf } from '../../src/client/api-error-from-response.js';
import { describeIdentity, identityOfUser, printableServer } from '../../src/client/api-request-context.js';
import { deniedRequestOf } from '../../src/client/denied-request.js';
import { suggestRbac } from '../../src/client/rbac-suggestion.js';

describe('deniedRequestOf: kube-apiserver 403 messages', () => {
  it('reads a namespaced denial', () => {
    expect(deniedRequestOf('pods is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "pods" in API group "" in the namespace "x"')).toEqual({
      user: 'system:serviceaccount:ns:sa',
      verb: 'list',
      resource: 'pods',
      apiGroup: '',
      namespace: 'x',
    });
  });

  it('reads a named object, a subresource, the cluster scope and an authorizer reason after it', () => {
    expect(deniedRequestOf('deployments.apps "web" is forbidden: User "alice" cannot update resource "deployments/scale" in API group "apps" in the namespace "shop": RBAC: role.rbac.authorization.k8s.io "x" not found')).toEqual({
      user: 'alice',
      verb: 'update',
      resource: 'deployments/scale',
      apiGroup: 'apps',
      namespace: 'shop',
    });
    expect(deniedRequestOf('nodes "n1" is forbidden: User "bob" cannot get resource "nodes" in API group "" at the cluster scope')).toEqual({
      user: 'bob',
      verb: 'get',
      resource: 'nodes',
      apiGroup: '',
    });
  });

  it('reads a non-resource path', () => {
    expect(deniedRequestOf('forbidden: User "bob" cannot get path "/metrics"')).toEqual({ user: 'bob', verb: 'get', path: '/metrics' });
  });

  it('yields nothing for an admission refusal, or for values not shaped like Kubernetes names', () => {
    expect(deniedRequestOf('pods "a" is forbidden: unable to create new content in namespace x because it is being terminated')).toBeUndefined();
    expect(deniedRequestOf(undefined)).toBeUndefined();
    expect(deniedRequestOf('User "bob" cannot list resource "PODS" in API group "" in the namespace "x"')).toBeUndefined();
    expect(deniedRequestOf('User "bob" cannot list resource "pods" in API group "" in the namespace "X_Y"')).toBeUndefined();
    expect(deniedRequestOf('User "bo\\"b" cannot list resource "pods" in API group "" in the namespace "x"')).toBeUndefined();
  });
});

describe('suggestRbac', () => {
  it('a namespaced denial: a Role rule bound with a RoleBinding', () => {
    const s = suggestRbac({ user: 'system:serviceaccount:ops:bot', verb: 'create', resource: 'configmaps', apiGroup: '', namespace: 'x' });
    expect(s).toEqual({
      role: 'Role',
      binding: 'RoleBinding',
      namespace: 'x',
      rule: { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
      subject: { kind: 'ServiceAccount', namespace: 'ops', name: 'bot' },
      yaml: '- apiGroups: [""]\n  resources: ["configmaps"]\n  verbs: ["create"]',
    });
  });

  it('a non-resource path: a ClusterRole rule of nonResourceURLs; other verbs when asked', () => {
    const s = suggestRbac({ user: 'bob', verb: 'get', path: '/metrics' }, ['get', 'list']);
    expect(s).toMatchObject({ role: 'ClusterRole', binding: 'ClusterRoleBinding', rule: { nonResourceURLs: ['/metrics'], verbs: ['get', 'list'] }, subject: { kind: 'User', name: 'bob' } });
    expect(s.yaml).toBe('- nonResourceURLs: ["/metrics"]\n  verbs: ["get", "list"]');
  });
});

describe('the identity and server named in errors', () => {
  it('names the kubeconfig user and how it authenticates, never a credential', () => {
    const token = 'tok-very-secret-1234';
    expect(describeIdentity(identityOfUser({ name: 'ci', token }))).toBe('kubeconfig user "ci" (a bearer token)');
    expect(describeIdentity(identityOfUser({ name: 'ci', token, exec: { command: '/usr/local/bin/aws-iam-authenticator', args: [token] } }))).toBe(
      'kubeconfig user "ci" (an exec plugin "aws-iam-authenticator")',
    );
    expect(describeIdentity(identityOfUser({ name: 'sa', tokenFile: '/var/run/secrets/token' }))).toBe('kubeconfig user "sa" (a token file "/var/run/secrets/token")');
    expect(describeIdentity(identityOfUser({ name: 'me', certData: 'PEM', keyData: token }))).toBe('kubeconfig user "me" (a client certificate)');
    expect(describeIdentity(identityOfUser({ name: 'old', username: 'admin', password: token }))).toBe('kubeconfig user "old" (basic auth)');
    expect(describeIdentity(identityOfUser({ name: 'oidc', authProvider: { name: 'oidc', config: { 'id-token': token } } }))).toBe('kubeconfig user "oidc" (an auth provider "oidc")');
    expect(describeIdentity(identityOfUser({ name: 'nobody' }))).toBe('kubeconfig user "nobody" (no credentials)');
  });

  it('prints a server URL without user info', () => {
    expect(printableServer(new URL('https://admin:hunter2@k8s.example:6443/prefix/'))).toBe('https://k8s.example:6443/prefix');
  });

  it('tells a Status from HTML, other JSON, text and nothing', () => {
    expect(bodyShapeOf('{"kind":"Status"}', 'application/json', { kind: 'Status' })).toBe('status');
    expect(bodyShapeOf('{"error":"no"}', 'application/json', { error: 'no' })).toBe('json');
    expect(bodyShapeOf('<!doctype html><p>x', undefined, undefined)).toBe('html');
    expect(bodyShapeOf('Not Found', 'text/html; charset=utf-8', undefined)).toBe('html');
    expect(bodyShapeOf('Not Found', 'text/plain', undefined)).toBe('text');
    expect(bodyShapeOf('  ', undefined, undefined)).toBe('empty');
  });
});

describe('ApiError without a request', () => {
  it('keeps the old message for a Status that needs no advice', () => {
    const err = new ApiError({ code: 409, reason: 'Conflict', message: 'the object has been modified' });
    expect(err.message).toBe('409 Conflict: the object has been modified');
    expect(err).toMatchObject({ hint: undefined, request: undefined, notKubernetes: false, rbacRule: undefined });
  });

  it('a 404 without a body says so, without a request to name', () => {
    const err = apiErrorFromResponse(404, '', {}, { nowMs: 0 });
    expect(err).toMatchObject({ code: 'API_NOT_FOUND', bodyShape: 'empty', notKubernetes: true });
    expect(err.hint).toContain('the server is not a Kubernetes API server');
    expect(err.hint).toContain('GET /version');
  });

  it('masks a credential in use wherever the hint quotes the server', () => {
    const secret = 'pw-0123456789abcdef';
    const err = apiErrorFromResponse(404, '<html></html>', {}, { nowMs: 0, secrets: [secret], request: { server: `https://k8s/${secret}`, method: 'GET', path: '/api' } });
    expect(err.message).not.toContain(secret);
    expect(err.hint).not.toContain(secret);
  });
});
