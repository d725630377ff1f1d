/**
 * Admission webhooks in the embedded API server, against plain node:https webhooks: matching
 * (rules, scope, subresources, selectors, matchPolicy), JSON patches, reinvocation, denials and
 * call failures answered as kube-apiserver 1.20, dry runs, warnings, timeouts on the injected scheduler.
 */
import { createServer } from 'node:net';
import { VirtualTimeScheduler } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';
import { answer, patchAnswer, startFakeWebhook, type FakeWebhook, type Json } from './webhook-fixture.js';

const REG = '/apis/admissionregistration.k8s.io/v1';
const CM = '/api/v1/namespaces/default/configmaps';

describe('embedded API server: admission webhooks', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  let wh: FakeWebhook;
  const scheduler = new VirtualTimeScheduler();
  const configs: string[] = [];

  beforeAll(async () => {
    wh = await startFakeWebhook((review) => answer(review, { allowed: true }));
    // 1.20: it still serves admissionregistration.k8s.io/v1beta1, whose defaults are tested here.
    server = await startApiServer({
      kubernetesVersion: '1.20',
      admissionWebhooks: { scheduler, resolveService: (s) => (s.name === 'hooks' ? wh.url : undefined) },
    });
    call = makeClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await wh?.close();
  });
  afterEach(async () => {
    for (const path of configs.splice(0)) await call('DELETE', path);
    wh.calls.length = 0;
    wh.handler = (review) => answer(review, { allowed: true });
  });

  const hook = (name: string, extra: Json = {}): Json => ({
    name,
    clientConfig: { url: `${wh.url}/${name}`, caBundle: wh.caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  });
  async function configure(type: 'mutating' | 'validating', name: string, hooks: Json[], apiVersion = 'v1'): Promise<void> {
    const plural = `${type}webhookconfigurations`;
    const kind = type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
    const res = await call('POST', `/apis/admissionregistration.k8s.io/${apiVersion}/${plural}`, { apiVersion: `admissionregistration.k8s.io/${apiVersion}`, kind, metadata: { name }, webhooks: hooks });
    expect(res.status).toBe(201);
    configs.push(`${REG}/${plural}/${name}`);
  }
  const cm = (name: string, extra: Json = {}): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, ...extra });
  const pathsCalled = (): string[] => wh.calls.map((c) => c.path.split('?')[0] ?? '');

  it('a mutating webhook patches the object; the review is what kube-apiserver 1.20 sends', async () => {
    wh.handler = (review) => patchAnswer(review, [{ op: 'add', path: '/metadata/labels', value: { injected: 'yes' } }]);
    await configure('mutating', 'm', [hook('mutate.example.com', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] })]);
    const res = await call('POST', '/api/v1/namespaces/default/pods?fieldManager=me', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mutated' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ injected: 'yes' });
    expect(wh.calls).toHaveLength(1);
    const { path, review } = wh.calls[0]!;
    expect(path).toBe('/mutate.example.com?timeout=10s');
    expect(review['apiVersion']).toBe('admission.k8s.io/v1');
    expect(review['kind']).toBe('AdmissionReview');
    const req = review.request as Json & { object: Json & { metadata: Json; spec: Json } };
    expect(req).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      requestKind: { group: '', version: 'v1', kind: 'Pod' },
      requestResource: { group: '', version: 'v1', resource: 'pods' },
      name: 'mutated',
      namespace: 'default',
      operation: 'CREATE',
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'me' },
    });
    expect(typeof req['uid']).toBe('string');
    expect(req['subResource']).toBeUndefined();
    // Defaults are applied before mutating admission; uid and creationTimestamp come after it.
    expect(req.object.spec['restartPolicy']).toBe('Always');
    expect(req.object.metadata['uid']).toBeUndefined();
    expect(req.object.metadata['creationTimestamp']).toBeUndefined();
  });

  it('a validating webhook denies with kube-apiserver\'s message and the webhook\'s code and reason', async () => {
    wh.handler = (review) => answer(review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no configmaps today' } });
    await configure('validating', 'v', [hook('deny.example.com')]);
    const res = await call('POST', CM, cm('denied'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "deny.example.com" denied the request: no configmaps today', reason: 'Forbidden', code: 403 });
    expect((await call('GET', `${CM}/denied`)).status).toBe(404);
    wh.handler = (review) => answer(review, { allowed: false });
    const bare = await call('POST', CM, cm('denied'));
    expect(bare.status).toBe(400);
    expect(bare.body.message).toBe('admission webhook "deny.example.com" denied the request without explanation');
    wh.handler = (review) => answer(review, { allowed: false, status: { code: 200, reason: 'NotToday' } });
    const reasonOnly = await call('POST', CM, cm('denied'));
    expect([reasonOnly.status, reasonOnly.body.message, reasonOnly.body.reason]).toEqual([400, 'admission webhook "deny.example.com" denied the request: NotToday', 'NotToday']);
  });

  it('mutating webhooks run first (by configuration name, then order), then validation, then validating webhooks', async () => {
    wh.handler = (review, path) => {
      const labels = ((review.request['object'] as Json)['metadata'] as Json)['labels'] as Record<string, string> | undefined;
      if (path.startsWith('/first.example.com')) return patchAnswer(review, [{ op: 'add', path: '/metadata/labels', value: { order: 'first' } }]);
      if (path.startsWith('/second.example.com')) return patchAnswer(review, [{ op: 'replace', path: '/metadata/labels/order', value: `${labels?.['order'] ?? ''}-second` }]);
      return answer(review, { allowed: true });
    };
    await configure('mutating', 'b-config', [hook('second.example.com')]);
    await configure('mutating', 'a-config', [hook('first.example.com')]);
    await configure('validating', 'v', [hook('check.example.com')]);
    const res = await call('POST', CM, cm('ordered'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ order: 'first-second' });
    expect(pathsCalled()).toEqual(['/first.example.com', '/second.example.com', '/check.example.com']);
    const validated = wh.calls[2]!.review.request['object'] as Json & { metadata: Json };
    expect(validated.metadata['labels']).toEqual({ order: 'first-second' });
    expect(typeof validated.metadata['uid']).toBe('string');
    // Schema validation between the two: an invalid mutation is refused before validating webhooks.
    wh.calls.length = 0;
    wh.handler = (review, path) => (path.startsWith('/first.example.com') ? patchAnswer(review, [{ op: 'add', path: '/data/bad key', value: 'x' }]) : answer(review, { allowed: true }));
    const invalid = await call('POST', CM, cm('invalid'));
    expect(invalid.status).toBe(422);
    expect(pathsCalled()).toEqual(['/first.example.com', '/second.example.com']);
  });

  it('validating webhooks see the name, uid and creation time that are stored (generateName too)', async () => {
    await configure('validating', 'ids', [hook('ids.example.com')]);
    const res = await call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
    expect(res.status).toBe(201);
    const seen = (wh.calls[0]!.review.request['object'] as Json)['metadata'] as Json;
    expect([seen['name'], seen['uid'], seen['creationTimestamp']]).toEqual([res.body.metadata.name, res.body.metadata.uid, res.body.metadata.creationTimestamp]);
    expect(wh.calls[0]!.review.request['name']).toBeUndefined();
  });

  it('a write whose managedFields time moves on while webhooks answer is admitted once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      wh.handler = (review) => {
        vi.setSystemTime(Date.now() + 2000);
        return answer(review, { allowed: true });
      };
      await configure('mutating', 'clock', [hook('clock.example.com')]);
      const res = await call('POST', CM, cm('clock'));
      expect(res.status).toBe(201);
      expect(wh.calls).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('failurePolicy: Fail answers 500 with the call error; Ignore lets the request through', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
    await configure('validating', 'down', [hook('down.example.com', { clientConfig: { url: `https://127.0.0.1:${closed}/check` } })]);
    const res = await call('POST', CM, cm('unreachable'));
    const why = `failed calling webhook "down.example.com": Post "https://127.0.0.1:${closed}/check?timeout=10s": dial tcp 127.0.0.1:${closed}: connect: connection refused`;
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${why}`, reason: 'InternalError', details: { causes: [{ message: why }] }, code: 500 });
    await call('DELETE', configs.pop()!);
    await configure('validating', 'down-ignored', [hook('down.example.com', { failurePolicy: 'Ignore', clientConfig: { url: `https://127.0.0.1:${closed}/check` } })]);
    expect((await call('POST', CM, cm('unreachable'))).status).toBe(201);
  });

  it('a certificate the caBundle does not verify is a call failure', async () => {
    const other = await startFakeWebhook((review) => answer(review, { allowed: true }));
    try {
      await configure('validating', 'wrong-ca', [hook('tls.example.com', { clientConfig: { url: `${wh.url}/tls`, caBundle: other.caBundle } })]);
      const res = await call('POST', CM, cm('tls'));
      expect([res.status, res.body.message]).toEqual([500, `Internal error occurred: failed calling webhook "tls.example.com": Post "${wh.url}/tls?timeout=10s": x509: certificate signed by unknown authority`]);
      expect(wh.calls).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('timeoutSeconds cuts the call on the injected scheduler (Fail: 500, Ignore: admitted)', async () => {
    wh.handler = () => {
      // The webhook holds the call; the server's timer (virtual) fires now.
      setImmediate(() => scheduler.flush());
      return undefined;
    };
    await configure('validating', 'slow', [hook('slow.example.com', { timeoutSeconds: 2 })]);
    const res = await call('POST', CM, cm('slow'));
    expect([res.status, res.body.message]).toEqual([500, `Internal error occurred: failed calling webhook "slow.example.com": Post "${wh.url}/slow.example.com?timeout=2s": context deadline exceeded`]);
    await call('DELETE', configs.pop()!);
    await configure('validating', 'slow-ignored', [hook('slow.example.com', { timeoutSeconds: 2, failurePolicy: 'Ignore' })]);
    expect((await call('POST', CM, cm('slow'))).status).toBe(201);
  });

  it('namespaceSelector and objectSelector choose the requests a webhook sees', async () => {
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched', labels: { webhooks: 'on' } } });
    await configure('validating', 'sel', [
      hook('ns.example.com', { namespaceSelector: { matchLabels: { webhooks: 'on' } } }),
      hook('obj.example.com', { objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] } }),
    ]);
    await call('POST', CM, cm('plain'));
    expect(pathsCalled()).toEqual([]);
    await call('POST', CM, cm('web', { metadata: { name: 'web', labels: { tier: 'web' } } }));
    expect(pathsCalled()).toEqual(['/obj.example.com']);
    wh.calls.length = 0;
    await call('POST', '/api/v1/namespaces/watched/configmaps', cm('in-watched'));
    expect(pathsCalled()).toEqual(['/ns.example.com']);
  });

  it('rules: operations, subresources, `*` and scope', async () => {
    await configure('validating', 'rules', [
      hook('status.example.com', { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/status'] }] }),
      hook('all-sub.example.com', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['namespaces/*'] }] }),
      hook('cluster.example.com', { rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }),
      hook('namespaced.example.com', { rules: [{ operations: ['CREATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Namespaced' }] }),
    ]);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'rules' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    await call('POST', '/api/v1/namespaces/default/pods', pod);
    expect(pathsCalled()).toEqual(['/namespaced.example.com']);
    wh.calls.length = 0;
    await call('PATCH', '/api/v1/namespaces/default/pods/rules/status', { status: { message: 'x' } }, 'application/merge-patch+json');
    expect(pathsCalled()).toEqual(['/status.example.com']);
    expect(wh.calls[0]!.review.request).toMatchObject({ operation: 'UPDATE', subResource: 'status', requestSubResource: 'status', options: { kind: 'UpdateOptions' } });
    expect((wh.calls[0]!.review.request['oldObject'] as Json)['metadata']).toMatchObject({ name: 'rules' });
    wh.calls.length = 0;
    await call('PATCH', '/api/v1/namespaces/default/pods/rules', { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    expect(pathsCalled()).toEqual([]);
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rules-ns' } });
    // `namespaces/*`: any subresource, and (as kube-apiserver's matcher) the resource itself.
    expect(pathsCalled()).toEqual(['/all-sub.example.com', '/cluster.example.com']);
  });

  it('matchPolicy: Equivalent calls a webhook for another served version of the resource, Exact does not', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
      },
    };
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    const rules = [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }];
    await configure('validating', 'match', [hook('exact.example.com', { matchPolicy: 'Exact', rules }), hook('equivalent.example.com', { matchPolicy: 'Equivalent', rules })]);
    const res = await call('POST', '/apis/example.com/v2/namespaces/default/widgets', { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'w' } });
    expect(res.status).toBe(201);
    expect(pathsCalled()).toEqual(['/equivalent.example.com']);
    expect(wh.calls[0]!.review.request).toMatchObject({
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      requestKind: { group: 'example.com', version: 'v2', kind: 'Widget' },
      requestResource: { group: 'example.com', version: 'v2', resource: 'widgets' },
      object: { apiVersion: 'example.com/v1' },
    });
  });

  it('dry runs: webhooks with side effects refuse them; NoneOnDryRun ones see dryRun: true and nothing is stored', async () => {
    await configure('validating', 'dry', [hook('effects.example.com', { sideEffects: 'NoneOnDryRun' })]);
    const ok = await call('POST', `${CM}?dryRun=All`, cm('dry'));
    expect(ok.status).toBe(201);
    expect(wh.calls[0]!.review.request).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
    expect((await call('GET', `${CM}/dry`)).status).toBe(404);
    // v1 refuses sideEffects Some; v1beta1 stores it.
    await configure('mutating', 'dry-some', [hook('some.example.com', { sideEffects: 'Some' })], 'v1beta1');
    const refused = await call('POST', `${CM}?dryRun=All`, cm('dry'));
    expect(refused.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "some.example.com" does not support dry run', reason: 'BadRequest', code: 400 });
  });

  it('reinvocationPolicy IfNeeded: called once more when a later webhook changed the object', async () => {
    wh.handler = (review, path) => (path.startsWith('/late.example.com') ? patchAnswer(review, [{ op: 'add', path: '/data/late', value: 'x' }]) : answer(review, { allowed: true }));
    await configure('mutating', 'a', [hook('early.example.com', { reinvocationPolicy: 'IfNeeded' }), hook('never.example.com', { reinvocationPolicy: 'Never' })]);
    await configure('mutating', 'b', [hook('late.example.com')]);
    const res = await call('POST', CM, cm('reinvoked'));
    expect(res.body.data).toEqual({ a: 'b', late: 'x' });
    expect(pathsCalled()).toEqual(['/early.example.com', '/never.example.com', '/late.example.com', '/early.example.com']);
    expect((wh.calls[3]!.review.request['object'] as Json)['data']).toEqual({ a: 'b', late: 'x' });
  });

  it('warnings reach the client as Warning headers', async () => {
    wh.handler = (review) => answer(review, { allowed: true, warnings: ['deprecated field "x"', 'second'] });
    await configure('validating', 'warn', [hook('warn.example.com')]);
    const res = await call('POST', CM, cm('warned'));
    expect(res.status).toBe(201);
    expect(res.headers['warning']).toBe('299 - "deprecated field \\"x\\"", 299 - "second"');
  });

  it('admissionReviewVersions: the first the server knows (v1beta1 answers need no uid)', async () => {
    wh.handler = () => ({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { allowed: true, patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/beta', value: '1' }])).toString('base64') } });
    await configure('mutating', 'beta', [hook('beta.example.com', { admissionReviewVersions: ['v2', 'v1beta1', 'v1'] })]);
    const res = await call('POST', CM, cm('beta'));
    expect(res.body.data).toEqual({ a: 'b', beta: '1' });
    expect(wh.calls[0]!.review['apiVersion']).toBe('admission.k8s.io/v1beta1');
    await call('DELETE', configs.pop()!);
    await configure('mutating', 'none', [hook('none.example.com', { admissionReviewVersions: ['v2'] })]);
    expect((await call('POST', CM, cm('none'))).body.message).toBe('Internal error occurred: failed calling webhook "none.example.com": webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  });

  it('v1 answers are checked: uid, kind, and patch without patchType', async () => {
    await configure('mutating', 'checked', [hook('checked.example.com')]);
    wh.handler = (review) => ({ ...answer(review, { allowed: true }), response: { uid: 'other', allowed: true } });
    expect((await call('POST', CM, cm('checked'))).body.message).toMatch(/failed calling webhook "checked.example.com": expected response.uid="[0-9a-f-]+", got "other"$/);
    wh.handler = (review) => answer(review, { allowed: true, patch: Buffer.from('[]').toString('base64') });
    expect((await call('POST', CM, cm('checked'))).body.message).toBe('Internal error occurred: failed calling webhook "checked.example.com": webhook returned response.patch but not response.patchType');
  });

  it('DELETE is admitted too: a denial keeps the object', async () => {
    await call('POST', CM, cm('kept'));
    wh.handler = (review) => answer(review, { allowed: false, status: { message: 'keep it' } });
    await configure('validating', 'nodelete', [hook('nodelete.example.com', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    const res = await call('DELETE', `${CM}/kept`);
    expect([res.status, res.body.message]).toEqual([400, 'admission webhook "nodelete.example.com" denied the request: keep it']);
    expect(wh.calls[0]!.review.request).toMatchObject({ operation: 'DELETE', object: null, name: 'kept', options: { kind: 'DeleteOptions' } });
    expect((await call('GET', `${CM}/kept`)).status).toBe(200);
  });

  it('clientConfig.service: resolved through the option; a missing service is answered as kube-apiserver', async () => {
    await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks' }, spec: { ports: [{ port: 443 }] } });
    await configure('validating', 'svc', [hook('svc.example.com', { clientConfig: { service: { namespace: 'default', name: 'hooks', path: '/via-service' }, caBundle: wh.caBundle } })]);
    expect((await call('POST', CM, cm('via-service'))).status).toBe(201);
    expect(wh.calls[0]!.path).toBe('/via-service?timeout=10s');
    await call('DELETE', configs.pop()!);
    await configure('validating', 'svc-missing', [hook('missing.example.com', { clientConfig: { service: { namespace: 'default', name: 'absent' } } })]);
    expect((await call('POST', CM, cm('no-service'))).body.message).toBe('Internal error occurred: failed calling webhook "missing.example.com": service "absent" not found');
  });

  it('v1beta1 configurations get v1beta1 defaults (failurePolicy Ignore)', async () => {
    await configure('validating', 'beta-defaults', [{ name: 'gone.example.com', clientConfig: { url: 'https://127.0.0.1:1/x' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }], 'v1beta1');
    expect((await call('POST', CM, cm('beta-defaults'))).status).toBe(201);
  });

  it('configurations are defaulted per version and validated as kube-apiserver 1.20', async () => {
    await configure('validating', 'defaulted', [{ name: 'd.example.com', clientConfig: { url: `${wh.url}/d` }, sideEffects: 'None', admissionReviewVersions: ['v1'], rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] }]);
    const stored = (await call('GET', `${REG}/validatingwebhookconfigurations/defaulted`)).body.webhooks[0];
    expect(stored).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, rules: [{ scope: '*' }] });
    await configure('mutating', 'defaulted-beta', [{ name: 'd.example.com', clientConfig: { url: `${wh.url}/d` } }], 'v1beta1');
    const beta = (await call('GET', '/apis/admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations/defaulted-beta')).body.webhooks[0];
    expect(beta).toMatchObject({ failurePolicy: 'Ignore', matchPolicy: 'Exact', sideEffects: 'Unknown', timeoutSeconds: 30, admissionReviewVersions: ['v1beta1'], reinvocationPolicy: 'Never' });
    const bad = await call('POST', `${REG}/validatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bad' },
      webhooks: [{ name: 'short', clientConfig: { url: 'http://127.0.0.1/x' }, sideEffects: 'Some', timeoutSeconds: 31, admissionReviewVersions: ['v1'] }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: [webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots, webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun", webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds, webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]]');
  });

  it('webhook configurations themselves are never sent to webhooks', async () => {
    wh.handler = (review) => answer(review, { allowed: false });
    await configure('validating', 'everything', [hook('everything.example.com', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] })]);
    await configure('validating', 'another', []);
    expect(wh.calls).toHaveLength(0);
  });
});
