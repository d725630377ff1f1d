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

describe('embedded API server: ill-typed fields and deep nesting get 400 and change nothing (issue 26 finding 11)', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const cms = '/api/v1/namespaces/default/configmaps';
  const secrets = '/api/v1/namespaces/default/secrets';
  const widgets = '/apis/example.com/v1/namespaces/default/widgets';
  let snapshot: () => Promise<string>;

  beforeAll(async () => {
    server = await startApiServer({ kubernetesVersion: '1.20' }); // 1.20: coordination.k8s.io/v1beta1 is served
    call = makeClient(server.url);
    await call('POST', cms, { metadata: { name: 'keep' }, data: { k: 'v' } });
    await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    snapshot = async () => JSON.stringify([(await call('GET', '/api/v1/configmaps')).body.items, (await call('GET', '/api/v1/secrets')).body.items, server.resourceVersion]);
  });
  afterAll(() => server.close());

  const nested = (depth: number): string => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
  const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  // Messages as kube-apiserver 1.20.2 answers them (checked against it), less the byte context it appends.
  const cm = (rest: string) => `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${rest}`;
  const meta = (rest: string) => cm(`v1.ConfigMap.ObjectMeta: v1.ObjectMeta.${rest}`);
  const readString = (c: string) => `ReadString: expects " or n, but found ${c}`;
  const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const lease = (rest: string) => `Lease in version "v1" cannot be handled as a Lease: v1.Lease.Spec: v1.LeaseSpec.${rest}`;
  const cases: [string, () => Promise<{ status: number; body: { reason?: string; message?: string } }>, string | RegExp][] = [
    ['metadata.name a number', () => call('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 5 } }), meta(`Name: ${readString('5')}`)],
    ['metadata.name true', () => call('POST', cms, { metadata: { name: true } }), meta(`Name: ${readString('t')}`)],
    ['metadata.name an array', () => call('POST', cms, { metadata: { name: ['x'] } }), meta(`Name: ${readString('[')}`)],
    ['metadata.generateName an object', () => call('POST', cms, { metadata: { generateName: { a: 1 } } }), meta(`GenerateName: ${readString('{')}`)],
    ['metadata.namespace a number', () => call('POST', cms, { metadata: { name: 'n', namespace: 7 } }), meta(`Namespace: ${readString('7')}`)],
    ['metadata.resourceVersion a number', () => call('POST', cms, { metadata: { name: 'n', resourceVersion: 5 } }), meta(`ResourceVersion: ${readString('5')}`)],
    ['metadata.generation a string', () => call('POST', cms, { metadata: { name: 'n', generation: 'a' } }), meta('Generation: readUint64: unexpected character: \ufffd')],
    ['metadata.generation a fraction', () => call('POST', cms, { metadata: { name: 'n', generation: 1.5 } }), meta('Generation: assertInteger: can not decode float as int')],
    ['metadata not an object', () => call('POST', cms, { metadata: 5 }), cm('v1.ConfigMap.ObjectMeta: readObjectStart: expect { or n, but found 5')],
    ['a label value that is a number', () => call('POST', cms, { metadata: { name: 'l', labels: { a: 5 } } }), meta(`Labels: ${readString('5')}`)],
    ['labels that are a list', () => call('POST', cms, { metadata: { name: 'l', labels: ['a'] } }), meta('Labels: ReadMapCB: expect { or n, but found [')],
    ['an annotation value that is a boolean', () => call('POST', cms, { metadata: { name: 'a', annotations: { a: true } } }), meta(`Annotations: ${readString('t')}`)],
    ['a finalizer that is a number', () => call('POST', cms, { metadata: { name: 'f', finalizers: ['a', 5, 'b'] } }), meta(`Finalizers: []string: ${readString('5')}`)],
    ['finalizers that are a string', () => call('POST', cms, { metadata: { name: 'f', finalizers: 'a' } }), meta('Finalizers: []string: decode slice: expect [ or n, but found "')],
    ['an owner reference flag that is a string', () => call('POST', cms, { metadata: { name: 'o', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: 'yes' }] } }), meta('OwnerReferences: []v1.OwnerReference: v1.OwnerReference.Controller: ReadBool: expect t or f, but found "')],
    ['an owner reference that is a number', () => call('POST', cms, { metadata: { name: 'o', ownerReferences: [5] } }), meta('OwnerReferences: []v1.OwnerReference: readObjectStart: expect { or n, but found 5')],
    ['owner references that are an object', () => call('POST', cms, { metadata: { name: 'o', ownerReferences: {} } }), meta('OwnerReferences: []v1.OwnerReference: decode slice: expect [ or n, but found {')],
    ['a ConfigMap data value that is a number', () => call('POST', cms, { metadata: { name: 'd' }, data: { a: 5 } }), cm(`v1.ConfigMap.Data: ${readString('5')}`)],
    ['ConfigMap binaryData values that are objects', () => call('POST', cms, { metadata: { name: 'd' }, binaryData: { a: {} } }), cm('v1.ConfigMap.BinaryData: base64Codec: invalid input')],
    ['ConfigMap binaryData that is not base64', () => call('POST', cms, { metadata: { name: 'd' }, binaryData: { a: '!!' } }), cm('v1.ConfigMap.BinaryData: decode base64: illegal base64 data at input byte 0')],
    ['immutable that is a string', () => call('POST', cms, { metadata: { name: 'd' }, immutable: 'x' }), cm('v1.ConfigMap.Immutable: ReadBool: expect t or f, but found "')],
    ['a Secret data value that is a number', () => call('POST', secrets, { metadata: { name: 's' }, data: { a: 5 } }), 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: base64Codec: invalid input'],
    ['a Secret data value cut short', () => call('POST', secrets, { metadata: { name: 's' }, data: { a: 'YWJjZA' } }), 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte 4'],
    ['a Secret data value padded wrongly', () => call('POST', secrets, { metadata: { name: 's' }, data: { a: 'ab=c' } }), 'Secret in version "v1" cannot be handled as a Secret: v1.Secret.Data: decode base64: illegal base64 data at input byte 2'],
    ['a Secret stringData value that is a boolean', () => call('POST', secrets, { metadata: { name: 's' }, stringData: { a: false } }), `Secret in version "v1" cannot be handled as a Secret: v1.Secret.StringData: ${readString('f')}`],
    ['a Secret type that is a number', () => call('POST', secrets, { metadata: { name: 's' }, type: 5 }), `Secret in version "v1" cannot be handled as a Secret: v1.Secret.Type: ${readString('5')}`],
    ['a Lease renewTime with three fraction digits', () => call('POST', leases, { metadata: { name: 'l' }, spec: { holderIdentity: 'a', renewTime: '2024-01-01T00:00:10.500Z' } }), lease('RenewTime: unmarshalerDecoder: parsing time "2024-01-01T00:00:10.500Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".500Z" as ".000000"')],
    ['a Lease renewTime without fraction digits', () => call('POST', leases, { metadata: { name: 'l' }, spec: { renewTime: '2024-01-01T00:00:10Z' } }), lease('RenewTime: unmarshalerDecoder: parsing time "2024-01-01T00:00:10Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"')],
    ['a Lease acquireTime with text after it', () => call('POST', leases, { metadata: { name: 'l' }, spec: { acquireTime: '2024-01-01T00:00:10.500000+01:00x' } }), lease('AcquireTime: unmarshalerDecoder: parsing time "2024-01-01T00:00:10.500000+01:00x": extra text: "x"')],
    ['a Lease renewTime in month 13', () => call('POST', leases, { metadata: { name: 'l' }, spec: { renewTime: '2024-13-01T00:00:10.500000Z' } }), lease('RenewTime: unmarshalerDecoder: parsing time "2024-13-01T00:00:10.500000Z": month out of range')],
    ['a Lease renewTime on February 30', () => call('POST', leases, { metadata: { name: 'l' }, spec: { renewTime: '2024-02-30T00:00:10.500000Z' } }), lease('RenewTime: unmarshalerDecoder: parsing time "2024-02-30T00:00:10.500000Z": day out of range')],
    ['a Lease renewTime that is a number', () => call('POST', leases, { metadata: { name: 'l' }, spec: { renewTime: 5 } }), lease('RenewTime: unmarshalerDecoder: json: cannot unmarshal number into Go value of type string')],
    ['a v1beta1 Lease renewTime with three fraction digits', () => call('POST', '/apis/coordination.k8s.io/v1beta1/namespaces/default/leases', { metadata: { name: 'l' }, spec: { renewTime: '2024-01-01T00:00:10.5Z' } }), 'Lease in version "v1beta1" cannot be handled as a Lease: v1beta1.Lease.Spec: v1beta1.LeaseSpec.RenewTime: unmarshalerDecoder: parsing time "2024-01-01T00:00:10.5Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".5Z" as ".000000"'],
    ['a Deployment name that is a boolean', () => call('POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: true }, spec: {} }), `Deployment in version "v1" cannot be handled as a Deployment: v1.Deployment.ObjectMeta: v1.ObjectMeta.Name: ${readString('t')}`],
    ['metadata.name a number on update', () => call('PUT', `${cms}/keep`, { data: { k: 'v' }, metadata: { name: 5 } }), meta(`Name: ${readString('5')}`)],
    ['a data value that is a number on update', () => call('PUT', `${cms}/keep`, { metadata: { name: 'keep' }, data: { k: 1 } }), cm(`v1.ConfigMap.Data: ${readString('1')}`)],
    ['a merge patch writing a number label', () => call('PATCH', `${cms}/keep`, { metadata: { labels: { a: 5 } } }, 'application/merge-patch+json'), /v1\.ObjectMeta\.Labels: ReadString/],
    ['a JSON patch writing a number data value', () => call('PATCH', `${cms}/keep`, [{ op: 'add', path: '/data/x', value: 5 }], 'application/json-patch+json'), /v1\.ConfigMap\.Data: ReadString/],
    ['a server-side apply with a number name', () => call('PATCH', `${cms}/keep?fieldManager=t`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}}', 'application/apply-patch+yaml'), /v1\.ObjectMeta\.Name: ReadString/],
    ['a custom resource with a number name', () => call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 5 } }), `Widget in version "v1" cannot be handled as a Widget: v1.ObjectMeta.Name: ${readString('5')}`],
    ['a custom resource whose metadata is a number', () => call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: 5 }), 'Widget in version "v1" cannot be handled as a Widget: readObjectStart: expect { or n, but found 5'],
    ['a custom resource with a number label', () => call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 1 } } }), /v1\.ObjectMeta\.(Name: )?Labels: ReadString: expects " or n, but found 1/],
    ['JSON nested 100,000 levels deep', () => call('POST', cms, `{"metadata":{"name":"deep"},"x":${deepArray(100_000)}}`), 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'[\' exceeded max depth ({"metadata":{"name":"deep"},"x ...)'],
    ['JSON objects nested 5,000 levels deep', () => call('POST', cms, `{"metadata":{"name":"deep"},"x":${nested(5000)}}`), /exceeded max depth/],
    ['nesting one level past the limit (1000)', () => call('POST', cms, `{"metadata":{"name":"deep"},"x":${nested(1000)}}`), /json parse error: invalid character '\{' exceeded max depth/],
    ['a deep custom resource', () => call('POST', widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"deep"},"spec":${nested(20_000)}}`), /exceeded max depth/],
    ['a deep merge patch', () => call('PATCH', `${cms}/keep`, `{"x":${nested(50_000)}}`, 'application/merge-patch+json'), /exceeded max depth/],
    ['a JSON patch that nests past the limit', () => call('PATCH', `${widgets}/w0`, `[{"op":"add","path":"/spec/${'a/'.repeat(600)}b","value":${nested(600)}}]`, 'application/json-patch+json'), /exceeded max depth/],
    ['a deep server-side apply', () => call('PATCH', `${cms}/keep?fieldManager=t`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep"},"x":${nested(3000)}}`, 'application/apply-patch+yaml'), /exceeded maxDepth/],
    ['a deep DeleteOptions body', () => call('DELETE', `${cms}/keep`, `{"x":${nested(30_000)}}`), /exceeded max depth/],
  ];

  it('a custom resource nested within the limit is stored (the JSON patch case below starts from it)', async () => {
    const r = await call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w0' }, spec: JSON.parse(`${'{"a":'.repeat(600)}{"b":1}${'}'.repeat(600)}`) as unknown });
    expect(r.status).toBe(201);
  });

  for (const [title, act, message] of cases) {
    it(`${title} → 400 BadRequest naming the field`, async () => {
      const before = await snapshot();
      const r = await act();
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      if (typeof message === 'string') expect(r.body.message).toBe(message);
      else expect(r.body.message).toMatch(message);
      expect(await snapshot()).toBe(before);
    });
  }

  it('null is Go\'s zero value: a null name lets generateName name the object, null map values are ""', async () => {
    const r = await call('POST', cms, { metadata: { name: null, generateName: 'gen-', labels: { a: null } }, data: { a: null } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-/);
    expect(r.body.metadata.labels).toEqual({ a: '' });
    expect(r.body.data).toEqual({ a: '' });
  });

  it('valid base64 Secret data is accepted, with or without padding lines', async () => {
    const r = await call('POST', secrets, { metadata: { name: 'b64' }, data: { a: 'YWJj', b: 'YWI=', c: 'YW==', d: 'YWJj\n' } });
    expect(r.status).toBe(201);
  });

  it('a body nested just within the limit is accepted (the unknown field dropped), not a 500', async () => {
    const r = await call('POST', cms, `{"metadata":{"name":"deep-ok"},"x":${nested(998)}}`);
    expect(r.status).toBe(201);
    expect(r.body.x).toBeUndefined();
  });

  it('the programmatic API refuses ill-typed metadata with a typed error', () => {
    let thrown: unknown;
    try {
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 5 as unknown as string, namespace: 'default' } });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ code: 'TESTING_DIRECT_API_REFUSED', layer: 'testing', status: { code: 400, reason: 'BadRequest' } });
    expect(() => server.get('v9', 'Nothing', 'x')).toThrow(expect.objectContaining({ code: 'TESTING_KIND_UNKNOWN', kind: 'Nothing' }) as Error);
  });

  it('the server is still up and the stored objects intact', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
    expect((await call('GET', `${cms}/keep`)).body.data).toEqual({ k: 'v' });
  });
});
