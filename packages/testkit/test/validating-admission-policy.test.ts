/**
 * ValidatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1) on the embedded
 * server, with the examples of the Kubernetes documentation ("Validating Admission Policy"):
 * denials answered as kube-apiserver 1.30 answers them, params, Warn actions as `Warning`
 * headers, match conditions, variables, failure policies, deletes, and refused policies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

function deployment(name: string, replicas: number) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { app: name } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

function policy(name: string, spec: object) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec };
}

function binding(name: string, spec: object) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec };
}

const DEPLOYMENT_RULES = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

describe('ValidatingAdmissionPolicy', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const created = async (path: string, body: object) => {
    const res = await call('POST', path, body);
    expect(res.status, res.text).toBe(201);
    return res.body;
  };
  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
    await created('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'test', labels: { environment: 'test' } } });
    await created('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { environment: 'prod' } } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('VAP-1 is served in discovery as admissionregistration.k8s.io/v1', async () => {
    const res = await call('GET', '/apis/admissionregistration.k8s.io/v1');
    const names = res.body.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(['validatingadmissionpolicies', 'validatingadmissionpolicybindings']));
  });

  it('VAP-1 prints the table columns kube-apiserver 1.30 prints', async () => {
    await created(POLICIES, policy('table-policy', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: { resourceRules: [{ apiGroups: ['nothing.example.com'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, validations: [{ expression: 'true' }, { expression: 'true' }] }));
    await created(BINDINGS, binding('table-binding', { policyName: 'table-policy', validationActions: ['Audit'], paramRef: { name: 'cfg', namespace: 'default', parameterNotFoundAction: 'Allow' } }));
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const p = await call('GET', `${POLICIES}/table-policy`, undefined, 'application/json', accept);
    expect(p.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Validations', 'ParamKind', 'Age']);
    expect(p.body.rows[0].cells.slice(0, 3)).toEqual(['table-policy', 2, 'v1/ConfigMap']);
    const b = await call('GET', `${BINDINGS}/table-binding`, undefined, 'application/json', accept);
    expect(b.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(b.body.rows[0].cells.slice(0, 3)).toEqual(['table-binding', 'table-policy', 'default/cfg']);
  });

  it('VAP-2 VAP-5 denies what the documentation example denies, in the namespaces its binding selects', async () => {
    await created(POLICIES, policy('demo-policy.example.com', { failurePolicy: 'Fail', matchConstraints: DEPLOYMENT_RULES, validations: [{ expression: 'object.spec.replicas <= 5' }] }));
    await created(BINDINGS, binding('demo-binding-test.example.com', { policyName: 'demo-policy.example.com', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } } }));
    const res = await call('POST', '/apis/apps/v1/namespaces/test/deployments', deployment('nginx', 6));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy \'demo-policy.example.com\' with binding \'demo-binding-test.example.com\' denied request: failed expression: object.spec.replicas <= 5',
      reason: 'Invalid',
      details: { name: 'nginx', group: 'apps', kind: 'deployments', causes: [{ message: 'ValidatingAdmissionPolicy \'demo-policy.example.com\' with binding \'demo-binding-test.example.com\' denied request: failed expression: object.spec.replicas <= 5' }] },
      code: 422,
    });
    expect((await call('POST', '/apis/apps/v1/namespaces/prod/deployments', deployment('nginx', 6))).status).toBe(201);
    expect((await call('POST', '/apis/apps/v1/namespaces/test/deployments', deployment('small', 3))).status).toBe(201);
    // Updates are checked too (PUT and PATCH), dry runs as well.
    const patched = await call('PATCH', '/apis/apps/v1/namespaces/test/deployments/small', { spec: { replicas: 9 } }, 'application/merge-patch+json');
    expect(patched.status).toBe(422);
    expect((await call('POST', '/apis/apps/v1/namespaces/test/deployments?dryRun=All', deployment('dry', 7))).status).toBe(422);
  });

  it('VAP-3 VAP-4 takes limits from params (paramKind + paramRef), with messageExpression and reason', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'replicalimits.rules.example.com' },
      spec: {
        group: 'rules.example.com', scope: 'Namespaced', names: { plural: 'replicalimits', singular: 'replicalimit', kind: 'ReplicaLimit' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { maxReplicas: { type: 'integer' } } } } }],
      },
    };
    await created('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    await created(POLICIES, policy('replicalimit-policy.example.com', {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' },
      matchConstraints: DEPLOYMENT_RULES,
      validations: [{ expression: 'object.spec.replicas <= params.maxReplicas', messageExpression: "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)", reason: 'Forbidden' }],
    }));
    await created(BINDINGS, binding('replicalimit-binding-prod.example.com', {
      policyName: 'replicalimit-policy.example.com', validationActions: ['Deny'],
      paramRef: { name: 'replica-limit-prod.example.com', namespace: 'prod', parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: { matchLabels: { environment: 'prod' } } },
    }));
    // The params object is missing: the binding denies (parameterNotFoundAction: Deny).
    const missing = await call('POST', '/apis/apps/v1/namespaces/prod/deployments', deployment('web', 1));
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    await created('/apis/rules.example.com/v1/namespaces/prod/replicalimits', { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit', metadata: { name: 'replica-limit-prod.example.com' }, maxReplicas: 3 });
    expect((await call('POST', '/apis/apps/v1/namespaces/prod/deployments', deployment('web', 2))).status).toBe(201);
    const over = await call('POST', '/apis/apps/v1/namespaces/prod/deployments', deployment('big', 4));
    expect(over.status).toBe(403);
    expect(over.body.reason).toBe('Forbidden');
    expect(over.body.details.causes[0].message).toBe("ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-prod.example.com' denied request: object.spec.replicas must be no greater than 3");
  });

  it('VAP-5 warns instead of denying with validationActions [Warn]', async () => {
    await created(POLICIES, policy('label-policy', {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'configmaps need a team label' }],
    }));
    await created(BINDINGS, binding('label-binding', { policyName: 'label-policy', validationActions: ['Warn', 'Audit'] }));
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nolabel' } });
    expect(res.status).toBe(201);
    expect(res.headers['warning']).toBe('299 - "Validation failed for ValidatingAdmissionPolicy \'label-policy\' with binding \'label-binding\': configmaps need a team label"');
    const labelled = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labelled', labels: { team: 'a' } } });
    expect(labelled.headers['warning']).toBeUndefined();
  });

  it('VAP-4 applies only where matchConditions hold, with variables and the request', async () => {
    await created(POLICIES, policy('name-policy', {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['secrets'] }] },
      matchConditions: [
        { name: 'exclude-kubelet-requests', expression: '!("system:nodes" in request.userInfo.groups)' },
        { name: 'only-demo', expression: "object.metadata.name.startsWith('demo')" },
      ],
      variables: [{ name: 'ns', expression: 'object.metadata.namespace' }, { name: 'isDemoNamespace', expression: "variables.ns == 'demo'" }],
      validations: [{ expression: 'variables.isDemoNamespace', messageExpression: "'demo secrets belong in namespace demo, not ' + variables.ns + ' (' + request.operation + ')'" }],
    }));
    await created(BINDINGS, binding('name-binding', { policyName: 'name-policy', validationActions: ['Deny'] }));
    expect((await call('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'other' } })).status).toBe(201);
    const res = await call('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'demo-1' } });
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].message).toContain('denied request: demo secrets belong in namespace demo, not default (CREATE)');
  });

  it('VAP-6 VAP-2 follows failurePolicy on evaluation errors, and checks deletes with oldObject', async () => {
    await created(POLICIES, policy('error-fail', { failurePolicy: 'Fail', matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['serviceaccounts'] }] }, validations: [{ expression: 'object.spec.nothing == 1' }] }));
    await created(BINDINGS, binding('error-fail', { policyName: 'error-fail', validationActions: ['Deny'] }));
    const fails = await call('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } });
    expect(fails.status).toBe(422);
    expect(fails.body.details.causes[0].message).toBe("ValidatingAdmissionPolicy 'error-fail' with binding 'error-fail' denied request: expression 'object.spec.nothing == 1' resulted in error: no such key: spec");
    await created(POLICIES, policy('protect', { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] }, validations: [{ expression: "!('protected' in oldObject.metadata.labels)", message: 'protected' }], failurePolicy: 'Ignore' }));
    await created(BINDINGS, binding('protect', { policyName: 'protect', validationActions: ['Deny'] }));
    await created('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', labels: { protected: 'yes', team: 't' } } });
    expect((await call('DELETE', '/api/v1/namespaces/default/configmaps/keep')).status).toBe(422);
    // No labels at all: the expression errors, and failurePolicy Ignore lets the delete through.
    expect((await call('DELETE', '/api/v1/namespaces/default/configmaps/nolabel')).status).toBe(200);
  });

  it('VAP-2 sees /status writes as the status subresource', async () => {
    await created(POLICIES, policy('status-policy', {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['namespaces/status'] }] },
      validations: [{ expression: "request.subResource == 'status' && object.status.phase != 'Frozen'", message: 'no frozen namespaces' }],
    }));
    await created(BINDINGS, binding('status-binding', { policyName: 'status-policy', validationActions: ['Deny'] }));
    const ns = (await call('GET', '/api/v1/namespaces/prod')).body;
    const res = await call('PUT', '/api/v1/namespaces/prod/status', { ...ns, status: { phase: 'Frozen' } });
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].message).toBe("ValidatingAdmissionPolicy 'status-policy' with binding 'status-binding' denied request: no frozen namespaces");
    // The main resource is not the status subresource.
    expect((await call('PUT', '/api/v1/namespaces/prod', { ...ns, metadata: { ...ns.metadata, annotations: { a: 'b' } } })).status).toBe(200);
  });

  it('VAP-1 refuses policies whose expressions do not compile, and bindings without actions', async () => {
    const res = await call('POST', POLICIES, policy('broken', { matchConstraints: DEPLOYMENT_RULES, validations: [{ expression: 'object.spec.replicas <=' }] }));
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].field).toBe('spec.validations[0].expression');
    expect(res.body.details.causes[0].message).toMatch(/^Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
    const b = await call('POST', BINDINGS, binding('no-actions', { policyName: 'x' }));
    expect(b.status).toBe(422);
    expect(b.body.details.causes).toEqual([{ reason: 'FieldValueRequired', field: 'spec.validationActions', message: 'Required value: at least one validation action is required' }]);
  });

  it('VAP-1 VAP-2 leaves policies, bindings and objects no policy matches alone', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } })).status).toBe(201);
    const cleanup = await call('DELETE', `${BINDINGS}/demo-binding-test.example.com`);
    expect(cleanup.status).toBe(200);
    expect((await call('POST', '/apis/apps/v1/namespaces/test/deployments', deployment('nginx', 6))).status).toBe(201);
  });
});
