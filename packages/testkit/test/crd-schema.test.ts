/** CRD structural schemas: defaults, pruning, validation (422 causes) and additionalPrinterColumns. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { makeClient } from './helpers.js';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'databases.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'databases', singular: 'database', kind: 'Database' },
    versions: [{
      name: 'v1', served: true, storage: true,
      subresources: { status: {} },
      additionalPrinterColumns: [
        { name: 'Engine', type: 'string', jsonPath: '.spec.engine' },
        { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        { name: 'Phase', type: 'string', jsonPath: '.status.phase', priority: 1 },
      ],
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              required: ['engine'],
              properties: {
                engine: { type: 'string', enum: ['postgres', 'mysql'] },
                replicas: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
                name: { type: 'string', maxLength: 8, pattern: '^[a-z]+$' },
                tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
                extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                labels: { type: 'object', additionalProperties: { type: 'string' } },
              },
            },
            status: { type: 'object', properties: { phase: { type: 'string' } } },
          },
        },
      },
    }],
  },
};

describe('CRD structural schemas', () => {
  let server: ApiServer;
  let call: ReturnType<typeof makeClient>;
  const base = '/apis/example.com/v1/namespaces/default/databases';
  beforeAll(async () => {
    server = await startApiServer();
    call = makeClient(server.url);
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('applies defaults and prunes unknown fields unless preserved', async () => {
    const res = await call('POST', base, { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'db' }, spec: { engine: 'postgres', bogus: 1, extra: { anything: { goes: true } }, labels: { a: 'b' } }, top: 'level' });
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({ engine: 'postgres', replicas: 1, extra: { anything: { goes: true } }, labels: { a: 'b' } });
    expect(res.body.top).toBeUndefined();
    const put = await call('PUT', `${base}/db`, { ...res.body, spec: { ...res.body.spec, replicas: undefined, more: 'x' } });
    expect(put.status).toBe(200);
    expect(put.body.spec.replicas).toBe(1);
    expect(put.body.spec.more).toBeUndefined();
  });

  it('validates with kube-apiserver causes', async () => {
    const res = await call('POST', base, { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'bad' }, spec: { engine: 'oracle', replicas: 9, name: 'TooLongName', tags: ['a', 'b', 'c'], labels: { a: 1 } } });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^Database\.example\.com "bad" is invalid: \[/);
    const causes = res.body.details.causes as { field: string; message: string; reason: string }[];
    expect(causes).toEqual(expect.arrayContaining([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "oracle": supported values: "postgres", "mysql"', field: 'spec.engine' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 9: spec.replicas in body should be less than or equal to 5', field: 'spec.replicas' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "TooLongName": spec.name in body should be at most 8 chars long', field: 'spec.name' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 3: spec.tags in body should have at most 2 items', field: 'spec.tags' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "integer": spec.labels.a in body must be of type string: "integer"', field: 'spec.labels.a' },
    ]));
    expect(causes).toHaveLength(5);
    const missing = await call('POST', base, { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'm' }, spec: {} });
    expect(missing.body.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.engine' }]);
  });

  it('tables carry the additionalPrinterColumns (priority 1 for -o wide)', async () => {
    const res = await call('GET', base, undefined, 'application/json', { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const table = res.body as { columnDefinitions: { name: string; priority: number }[]; rows: { cells: unknown[] }[] };
    expect(table.columnDefinitions.map((c) => [c.name, c.priority])).toEqual([['Name', 0], ['Engine', 0], ['Replicas', 0], ['Phase', 1]]);
    expect(table.rows[0]?.cells).toEqual(['db', 'postgres', 1, null]);
  });
});

describe('CRD schemas and metadata.generation', () => {
  it('a spec change of a custom resource bumps generation (admission copies the object)', async () => {
    const server = await startApiServer();
    try {
      const call = makeClient(server.url);
      await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
      await call('POST', '/apis/example.com/v1/namespaces/default/databases', { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'g' }, spec: { engine: 'mysql' } });
      const res = await call('PATCH', '/apis/example.com/v1/namespaces/default/databases/g', { spec: { replicas: 3 } }, 'application/merge-patch+json');
      expect(res.body.metadata.generation).toBe(2);
    } finally {
      await server.close();
    }
  });
});
