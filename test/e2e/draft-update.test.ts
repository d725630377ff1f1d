/**
 * Tier 3: draft edits (`ObjectClient.edit` / `editStatus`) against a real kube-apiserver
 * (KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED are set by the e2e runner): the JSON patches
 * built from immer drafts are applied by kube-apiserver's RFC 6902 implementation exactly as the
 * recipe's result, keys with `/` and `~` are escaped right, a failed resourceVersion `test` is a
 * 422 that the edit reads as a conflict, and the recipe is re-run on the newer copy.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { freeze, type Draft } from 'immer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResolvedResourceType as Resource } from '../../src/api/resource.js';
import { ApiError } from '../../src/client/api-error.js';
import { draftPatch, type Json } from '../../src/client/draft-patch.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { ObjectClient } from '../../src/client/object-client.js';
import { documentArbs, recipeOf } from '../helpers/draft-recipes.js';
import { hasCluster, sleep } from './helpers/cluster.js';

const GROUP = 'drafts.e2e.rxkube.dev';
const THINGS: Resource = { apiVersion: `${GROUP}/v1`, kind: 'Thing', plural: 'things', namespaced: true };
const CRDS: Resource = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
const NAMESPACES: Resource = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const CONFIG_MAPS: Resource = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `things.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'things', singular: 'thing', kind: 'Thing' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

interface Thing extends KubeObject {
  readonly spec?: Json;
  readonly status?: Json;
}
interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}
interface Condition {
  type: string;
  status: string;
}

const asJson = (v: unknown): Json => JSON.parse(JSON.stringify(v ?? null)) as Json;

describe.skipIf(!hasCluster)('draft edits against a real kube-apiserver', () => {
  const ns = `drafts-e2e-${randomBytes(3).toString('hex')}`;
  let client: KubeClient;
  let writer: KubeClient;
  let things: ObjectClient<Thing>;
  let cms: ObjectClient<ConfigMap>;
  let n = 0;
  const fresh = (prefix: string): string => `${prefix}-${++n}`;
  const thing = (name: string, spec: Json): Thing => ({ apiVersion: THINGS.apiVersion, kind: THINGS.kind, metadata: { name }, spec });

  beforeAll(async () => {
    client = KubeClient.fromDefault();
    writer = KubeClient.fromDefault(); // the concurrent writer: its own connection
    await writer.objects(CRDS).create(crd).catch((err: unknown) => {
      if (!(err as { reason?: string }).reason?.includes('AlreadyExists')) throw err;
    });
    await writer.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (let i = 0; ; i++) {
      const got = (await writer.objects(CRDS).get(`things.${GROUP}`)) as KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (i > 100) throw new Error('CRD not established');
      await sleep(100);
    }
    things = client.objects<Thing>(THINGS, ns);
    cms = client.objects<ConfigMap>(CONFIG_MAPS, ns);
  }, 60_000);

  afterAll(async () => {
    await writer?.objects(NAMESPACES).delete(ns).catch(() => undefined);
    client?.close();
    writer?.close();
  }, 60_000);

  it('kube-apiserver answers a failed JSON-patch test with 422 Invalid, no causes (what the edit reads as a possible conflict)', async () => {
    const cm = await cms.create({ metadata: { name: fresh('probe') }, data: { a: '1' } });
    await writer.objects<ConfigMap>(CONFIG_MAPS, ns).patch(cm.metadata?.name ?? '', { data: { b: '2' } });
    const err = await cms
      .patch(cm.metadata?.name ?? '', [{ op: 'test', path: '/metadata/resourceVersion', value: cm.metadata?.resourceVersion }, { op: 'add', path: '/data/c', value: '3' }], 'json')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 422, reason: 'Invalid' });
    expect((err as ApiError).status.details?.causes ?? []).toEqual([]);
  });

  it('arrays edited in the middle, truncated and pushed; annotation keys with / and ~', async () => {
    const created = freeze(
      await things.create({
        ...thing(fresh('arrays'), { items: ['a', 'b', 'c', 'd', 'e'], rules: [{ name: 'r0' }, { name: 'r1', ports: [1, 2, 3] }, { name: 'r2' }], tail: [1, 2, 3, 4] }),
        metadata: { name: `arrays-${n}`, annotations: { 'keep.example.com/me': 'yes' } },
      }),
      true,
    );
    const recipe = (d: Draft<Thing>): void => {
      const spec = d.spec as { items: string[]; rules: { name: string; ports?: number[] }[]; tail: number[]; [k: string]: unknown };
      spec.items.splice(2, 1); // remove 'c' in the middle
      spec.items.splice(1, 0, 'b2'); // insert in the middle
      (spec.rules[1]?.ports ?? []).splice(1, 1, 20, 21);
      spec.rules.splice(0, 1);
      spec.tail.length = 1; // truncate
      spec.tail.push(9);
      d.metadata ??= {};
      (d.metadata.annotations ??= {})['example.com/x'] = 'slash';
      spec['we~ird/key'] = { '~0': 'tilde' }; // kube-apiserver refuses ~ in annotation keys; free-form spec takes it
    };
    const expected = draftPatch(created, recipe).result;
    const updated = await things.edit(created, recipe);
    expect(updated.spec).toEqual({
      items: ['a', 'b2', 'b', 'd', 'e'],
      rules: [{ name: 'r1', ports: [1, 20, 21, 3] }, { name: 'r2' }],
      tail: [1, 9],
      'we~ird/key': { '~0': 'tilde' },
    });
    expect(asJson(updated.spec)).toEqual(asJson(expected.spec));
    expect(updated.metadata?.annotations).toEqual({ 'keep.example.com/me': 'yes', 'example.com/x': 'slash' });
    // nothing left to change: no request, the same object back
    expect(await things.edit(updated, () => undefined)).toBe(updated);
  });

  it('property: kube-apiserver applies the patch to exactly the recipe’s result', async () => {
    const { objectDoc, actionArb } = documentArbs({ nulls: false });
    await fc.assert(
      fc.asyncProperty(objectDoc, fc.array(actionArb, { minLength: 1, maxLength: 5 }), async (spec, actions) => {
        const created = freeze(await things.create(thing(fresh('prop'), spec)), true);
        const recipe = recipeOf<Thing>(actions);
        const expected = draftPatch(created, recipe).result;
        const updated = await things.edit(created, recipe);
        expect(asJson(updated.spec)).toEqual(asJson(expected.spec));
        await things.delete(created.metadata?.name ?? '');
      }),
      { numRuns: 40 },
    );
  });

  it('editStatus through the status subresource: conditions edited in the middle', async () => {
    const created = await things.create(thing(fresh('status'), { size: 1 }));
    const withStatus = await things.editStatus(freeze(created, true), (d) => {
      d.status = { phase: 'Pending', conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }, { type: 'C', status: 'True' }] };
    });
    expect(withStatus.status).toMatchObject({ phase: 'Pending' });
    const updated = await things.editStatus(freeze(withStatus, true), (d) => {
      const status = d.status as unknown as { phase: string; conditions: Condition[] };
      status.phase = 'Ready';
      const b = status.conditions.findIndex((c) => c.type === 'B');
      status.conditions.splice(b, 1, { type: 'B', status: 'True' }, { type: 'B2', status: 'True' });
    });
    expect(updated.status).toEqual({ phase: 'Ready', conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'True' }, { type: 'B2', status: 'True' }, { type: 'C', status: 'True' }] });
    expect(updated.spec).toEqual({ size: 1 });
    await expect(things.editStatus(updated, (d) => void (d.spec = { size: 2 }))).rejects.toThrow(TypeError);
  });

  it('conflict: another writer changes the object after our read; the 422 from the failed test leads to a re-read and a re-run, and both changes land', async () => {
    const created = freeze(await things.create(thing(fresh('race'), { list: ['a', 'b', 'c'] })), true);
    const name = created.metadata?.name ?? '';
    // the other writer, on its own connection, after our read: prepends to the list and labels
    await writer.objects<Thing>(THINGS, ns).patch(name, { metadata: { labels: { writer: 'other' } }, spec: { list: ['x', 'a', 'b', 'c'] } });
    const seen: Json[] = [];
    const updated = await things.edit(created, (d) => {
      const list = (d.spec as { list: string[] }).list;
      seen.push([...list]);
      list.splice(list.indexOf('b'), 1); // remove 'b', wherever it is now
    });
    expect(seen).toEqual([['a', 'b', 'c'], ['x', 'a', 'b', 'c']]);
    expect(updated.metadata?.labels).toEqual({ writer: 'other' });
    expect(updated.spec).toEqual({ list: ['x', 'a', 'c'] });
  });

  it('a genuine 422 (invalid object) is thrown as is, not retried', async () => {
    const cm = freeze(await cms.create({ metadata: { name: fresh('invalid') }, data: { a: '1' } }), true);
    let runs = 0;
    const err = await cms
      .edit(cm, (d) => {
        runs++;
        d.metadata ??= {};
        (d.metadata.labels ??= {})['not a valid label'] = 'x';
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 422 });
    expect(runs).toBe(1);
  });
});
