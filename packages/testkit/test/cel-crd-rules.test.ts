/**
 * CRD validation rules (`x-kubernetes-validations`) on the embedded server, with the examples of
 * the Kubernetes documentation ("Extend the Kubernetes API with CustomResourceDefinitions",
 * section "Validation rules"): a custom resource that breaks a rule is refused with 422 Invalid as
 * kube-apiserver 1.30 refuses it, transition rules see the stored object, and a CRD whose rules
 * do not compile (or cost too much) is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(plural: string, kind: string, schema: object) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.stable.example.com` },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

/** The documentation's CronTab with its replica rules, plus rules for the other behaviours. */
const CRONTAB = crd('crontabs', 'CronTab', {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.minReplicas <= self.replicas', message: 'replicas should be greater than or equal to minReplicas.' },
        { rule: 'self.replicas <= self.maxReplicas', message: 'replicas should be smaller than or equal to maxReplicas.' },
        { rule: 'self.x <= self.maxLimit', messageExpression: '"x exceeded max limit of " + string(self.maxLimit)' },
        { rule: "!has(self.mode) || self.mode != 'forbidden'", reason: 'FieldValueForbidden', fieldPath: '.mode', message: 'mode may not be forbidden' },
        { rule: "has(self.owner) || !has(self.mode)", reason: 'FieldValueRequired', fieldPath: '.owner', message: 'owner is required with a mode' },
      ],
      properties: {
        cronSpec: { type: 'string' },
        image: { type: 'string' },
        minReplicas: { type: 'integer', default: 0 },
        replicas: { type: 'integer', default: 1 },
        maxReplicas: { type: 'integer', default: 10 },
        x: { type: 'integer', default: 0 },
        maxLimit: { type: 'integer', default: 100 },
        mode: { type: 'string' },
        owner: { type: 'string' },
        immutableName: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
        counter: { type: 'integer', 'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || self >= oldSelf.value()', optionalOldSelf: true, message: 'counter may not go down' }] },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'port may only grow' }] } },
            'x-kubernetes-validations': [{ rule: 'self.port > 0 && self.port < 65536', message: 'port out of range' }],
          },
        },
        limits: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'isQuantity(self)', message: 'must be a quantity' }] } },
        ratio: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: "type(self) == string ? self.endsWith('%') : self >= 0" }] },
      },
    },
  },
  'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('ct-')", message: 'name must start with ct-' }],
});

describe('CRD validation rules', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const base = '/apis/stable.example.com/v1/namespaces/default/crontabs';
  const ct = (name: string, spec: object) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec });
  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
    const res = await call('POST', CRDS, CRONTAB);
    expect(res.status, res.text).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('CEL-3 refuses a custom resource that breaks a rule, as kube-apiserver words it', async () => {
    const res = await call('POST', base, ct('ct-a', { cronSpec: '* * * * */5', image: 'my-awesome-cron-image', minReplicas: 0, replicas: 20, maxReplicas: 10 }));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toBe('CronTab.stable.example.com "ct-a" is invalid: spec: Invalid value: "object": replicas should be smaller than or equal to maxReplicas.');
    expect(res.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas should be smaller than or equal to maxReplicas.', field: 'spec' }]);
  });

  it('CEL-1 accepts one that keeps every rule', async () => {
    const res = await call('POST', base, ct('ct-ok', { replicas: 3, ratio: '50%', limits: { cpu: '500m' }, ports: [{ name: 'http', port: 80 }] }));
    expect(res.status, res.text).toBe(201);
  });

  it('CEL-3 lists every broken rule, with messageExpression', async () => {
    const res = await call('POST', base, ct('ct-b', { minReplicas: 5, replicas: 1, x: 200 }));
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('CronTab.stable.example.com "ct-b" is invalid: [spec: Invalid value: "object": replicas should be greater than or equal to minReplicas., spec: Invalid value: "object": x exceeded max limit of 100]');
  });

  it('CEL-3 uses reason and fieldPath for the cause', async () => {
    const res = await call('POST', base, ct('ct-c', { mode: 'forbidden' }));
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueForbidden', message: 'Forbidden: mode may not be forbidden', field: 'spec.mode' },
      { reason: 'FieldValueRequired', message: 'Required value: owner is required with a mode', field: 'spec.owner' },
    ]);
  });

  it('CEL-1 CEL-2 evaluates rules at the root (with metadata.name), per list element and per map value', async () => {
    const root = await call('POST', base, ct('bad-name', {}));
    expect(root.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": name must start with ct-', field: '<nil>' }]);
    const items = await call('POST', base, ct('ct-d', { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 70000 }], limits: { cpu: 'lots' }, ratio: -1 }));
    expect(items.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": port out of range', field: 'spec.ports[1]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": must be a quantity', field: 'spec.limits[cpu]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": failed rule: type(self) == string ? self.endsWith(\'%\') : self >= 0', field: 'spec.ratio' },
    ]);
  });

  it('CEL-4 runs transition rules on update only, against the stored object', async () => {
    const created = await call('POST', base, ct('ct-t', { immutableName: 'one', counter: 5, ports: [{ name: 'http', port: 80 }] }));
    expect(created.status, created.text).toBe(201);
    const obj = created.body;
    const changed = await call('PUT', `${base}/ct-t`, { ...obj, spec: { ...obj.spec, immutableName: 'two', counter: 4, ports: [{ name: 'http', port: 79 }, { name: 'new', port: 1 }] } });
    expect(changed.status).toBe(422);
    expect(changed.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": Value is immutable', field: 'spec.immutableName' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "integer": counter may not go down', field: 'spec.counter' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "integer": port may only grow', field: 'spec.ports[0].port' },
    ]);
    const fine = await call('PUT', `${base}/ct-t`, { ...obj, spec: { ...obj.spec, counter: 6 } });
    expect(fine.status, fine.text).toBe(200);
  });

  it('CEL-5 reports runtime errors of a rule as a cause', async () => {
    const res = await call('POST', CRDS, crd('errs', 'Err', { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a > 0' }] } } }));
    expect(res.status, res.text).toBe(201);
    const bad = await call('POST', '/apis/stable.example.com/v1/namespaces/default/errs', { apiVersion: 'stable.example.com/v1', kind: 'Err', metadata: { name: 'e' }, spec: {} });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": no such key: a evaluating rule: self.a > 0', field: 'spec' }]);
  });

  it('CEL-9 lets an update through that leaves a failing value unchanged, with a warning', async () => {
    const widgets = (rules: object[]) => crd('ratchets', 'Ratchet', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { b: { type: 'string', 'x-kubernetes-validations': rules }, c: { type: 'string' } } } },
    });
    const path = '/apis/stable.example.com/v1/namespaces/default/ratchets';
    expect((await call('POST', CRDS, widgets([]))).status).toBe(201);
    const stored = (await call('POST', path, { apiVersion: 'stable.example.com/v1', kind: 'Ratchet', metadata: { name: 'r' }, spec: { b: 'old', c: 'one' } })).body;
    // The rule arrives after the object: `b` breaks it now.
    const current = (await call('GET', `${CRDS}/ratchets.stable.example.com`)).body;
    current.spec.versions = widgets([{ rule: "self.startsWith('x')", message: 'b must start with x' }]).spec.versions;
    expect((await call('PUT', `${CRDS}/ratchets.stable.example.com`, current)).status).toBe(200);
    const untouched = await call('PUT', `${path}/r`, { ...stored, spec: { b: 'old', c: 'two' } });
    expect(untouched.status, untouched.text).toBe(200);
    expect(untouched.headers['warning']).toBe('299 - "spec.b: Invalid value: \\"string\\": b must start with x"');
    const touched = await call('PUT', `${path}/r`, { ...untouched.body, spec: { b: 'still-bad', c: 'two' } });
    expect(touched.status).toBe(422);
    expect(touched.body.details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "string": b must start with x', field: 'spec.b' }]);
  });

  it('CEL-1 runs the rules on /status writes too (the whole object, against the stored one)', async () => {
    const def = crd('jobs', 'Job', {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        status: { type: 'object', properties: { phase: { type: 'string', 'x-kubernetes-validations': [{ rule: "self in ['Pending', 'Running', 'Done']", message: 'unknown phase' }] }, done: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: '!has(oldSelf.done) || self.done >= oldSelf.done', message: 'done may not go down' }] },
      },
    });
    (def.spec.versions[0] as Record<string, unknown>)['subresources'] = { status: {} };
    expect((await call('POST', CRDS, def)).status).toBe(201);
    const path = '/apis/stable.example.com/v1/namespaces/default/jobs';
    const obj = (await call('POST', path, { apiVersion: 'stable.example.com/v1', kind: 'Job', metadata: { name: 'j' }, spec: { size: 1 } })).body;
    const running = await call('PUT', `${path}/j/status`, { ...obj, status: { phase: 'Running', done: 2 } });
    expect(running.status, running.text).toBe(200);
    const bad = await call('PUT', `${path}/j/status`, { ...running.body, status: { phase: 'Lost', done: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": done may not go down', field: 'status' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": unknown phase', field: 'status.phase' },
    ]);
    const patched = await call('PATCH', `${path}/j/status`, { status: { phase: 'Nope' } }, 'application/merge-patch+json');
    expect(patched.status).toBe(422);
  });

  it('CEL-7 keeps the rules when the CRD is updated', async () => {
    const current = (await call('GET', `${CRDS}/crontabs.stable.example.com`)).body;
    const res = await call('PUT', `${CRDS}/crontabs.stable.example.com`, { ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations']).toHaveLength(1);
    const still = await call('POST', base, ct('ct-e', { replicas: 20 }));
    expect(still.status).toBe(422);
  });
});

describe('CRD creation with rules kube-apiserver refuses', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('CEL-7 refuses a rule that does not compile (422 on the CRD)', async () => {
    const res = await call('POST', CRDS, crd('widgets', 'Widget', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { ip: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'isCIDR2(self.ip)', message: 'bad' }] } },
    }));
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toHaveLength(1);
    expect(res.body.details.causes[0].field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(res.body.details.causes[0].message).toBe(
      'Invalid value: apiextensions.ValidationRule{Rule:"isCIDR2(self.ip)", Message:"bad", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:8: undeclared reference to \'isCIDR2\' (in container \'\')\n | isCIDR2(self.ip)\n | .......^',
    );
  });

  it('CEL-7 refuses a rule naming a field the schema does not declare, a bad fieldPath and reason', async () => {
    const res = await call('POST', CRDS, crd('gadgets', 'Gadget', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.replica > 0', fieldPath: '.nope', reason: 'Wrong' }] } },
    }));
    expect(res.status).toBe(422);
    const fields = res.body.details.causes.map((c: { field: string }) => c.field);
    expect(fields).toEqual([
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason',
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    ]);
    expect(res.body.details.causes[1].message).toContain("undefined field 'replica'");
  });

  it('CEL-7 refuses oldSelf where nothing correlates (items of a list that is not a map)', async () => {
    const res = await call('POST', CRDS, crd('lists', 'List', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { xs: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } } },
    }));
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].message).toContain('oldSelf cannot be used on the uncorrelatable portion of the schema');
  });

  it('CEL-7 refuses a rule whose estimated cost is over the limit, and takes it with maxItems', async () => {
    const schema = (maxItems?: number) => ({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { xs: { type: 'array', ...(maxItems !== undefined ? { maxItems } : {}), items: { type: 'integer' } } },
          'x-kubernetes-validations': [{ rule: 'self.xs.all(a, self.xs.all(b, a != b || a == b))' }],
        },
      },
    });
    const res = await call('POST', CRDS, crd('costly', 'Costly', schema()));
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].message).toMatch(/^Forbidden: estimated rule cost exceeds budget by factor of [0-9.]+x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/);
    expect((await call('POST', CRDS, crd('costly', 'Costly', schema(100)))).status).toBe(201);
  });
});
