/**
 * Draft edits: a recipe on an immer draft of a frozen object becomes a JSON patch guarded by a
 * resourceVersion test (src/client/draft-patch.ts, src/client/update-with-recipe.ts), checked
 * against the RFC 6902 implementation of the embedded API server, in process and over HTTP.
 */
import fc from 'fast-check';
import { freeze, type Draft } from 'immer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cached, KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import type { Store } from '../../src/cache/store.js';
import { ApiError } from '../../src/client/api-error.js';
import { draftPatch, jsonDiff, jsonPointer, operationsFromPatches, type Json, type Recipe } from '../../src/client/draft-patch.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { ObjectClient } from '../../src/client/object-client.js';
import { EditConflictError } from '../../src/client/update-with-recipe.js';
import { withEdits } from '../../src/controller/context-edits.js';
import { ControllerError } from '../../src/controller/controller-errors.js';
import type { ReconcileContext } from '../../src/controller/reconcile-context.js';
import { jsonPatch } from '../../packages/testkit/src/api-server/patch.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { documentArbs, recipeOf } from '../helpers/draft-recipes.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { ControllerExpectations } from '../../src/controller/expectations.js';
import { noopEventRecorder } from '../../src/controller/noop-event-recorder.js';
import { Indexer } from '../../src/cache/indexer.js';
import { useEmbeddedServer } from '../helpers/embedded-server.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const THINGS = { apiVersion: 'example.com/v1', kind: 'Thing' } as const;

interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}
interface Thing extends KubeObject {
  readonly spec?: Json;
  readonly status?: Json;
}

const thingsCrd: UnstructuredObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'things', singular: 'thing', kind: 'Thing' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

const asJson = (v: unknown): Json => JSON.parse(JSON.stringify(v ?? null)) as Json;

const { json, objectDoc, actionArb } = documentArbs();

describe('draftPatch (in process)', () => {
  it('escapes pointer tokens: ~ → ~0, / → ~1', () => {
    expect(jsonPointer(['metadata', 'annotations', 'example.com/x'])).toBe('/metadata/annotations/example.com~1x');
    expect(jsonPointer(['a~b', '~1', '/', 0])).toBe('/a~0b/~01/~1/0');
  });

  it('turns edits of a frozen object into minimal operations', () => {
    const annotations: Record<string, string> = { 'a~b': '1', keep: 'me' };
    const base = freeze(
      { metadata: { name: 'x', resourceVersion: '7', annotations }, spec: { items: [1, 2, 3, 4, 5], keep: { big: 'x'.repeat(50) } }, status: { a: 1, b: 2 } },
      true,
    );
    const { result, operations } = draftPatch(base, (d) => {
      d.metadata.annotations['example.com/x'] = 'y';
      delete d.metadata.annotations['a~b'];
      d.spec.items.splice(1, 1); // in the middle
      d.spec.items.push(6);
      d.status = { a: 1, b: 3 }; // replaced by an equal-but-one object: only b is sent
    });
    expect(result.spec.items).toEqual([1, 3, 4, 5, 6]);
    expect(operations).toContainEqual({ op: 'add', path: '/metadata/annotations/example.com~1x', value: 'y' });
    expect(operations).toContainEqual({ op: 'remove', path: '/metadata/annotations/a~0b' });
    expect(operations).toContainEqual({ op: 'replace', path: '/status/b', value: 3 });
    expect(JSON.stringify(operations)).not.toContain('x'.repeat(50));
    expect(jsonPatch(base, operations)).toEqual(asJson(result));
    expect(base.spec.items).toEqual([1, 2, 3, 4, 5]); // the input is untouched
  });

  it('truncation is removes from the end; undefined means absent; no-ops are empty', () => {
    const base = freeze({ l: [1, 2, 3, 4], x: 1, o: { a: [1] } }, true);
    expect(draftPatch(base, (d) => void (d.l.length = 1)).operations).toEqual([
      { op: 'remove', path: '/l/3' },
      { op: 'remove', path: '/l/2' },
      { op: 'remove', path: '/l/1' },
    ]);
    expect(draftPatch(base as { x?: number }, (d) => void (d.x = undefined)).operations).toEqual([{ op: 'remove', path: '/x' }]);
    expect(draftPatch(base, (d) => {
      d.x = 1;
      d.o = { a: [1] };
      d.l.push(9);
      d.l.pop();
    }).operations).toEqual([]);
  });

  it("an older immer's replace of an array's length becomes removes from the end", () => {
    const ops = operationsFromPatches({ s: { l: [1, 2, 3, 4] } }, [
      { op: 'replace', path: ['s', 'l', 0], value: 9 },
      { op: 'replace', path: ['s', 'l', 'length'], value: 2 },
    ]);
    expect(ops?.operations).toEqual([
      { op: 'replace', path: '/s/l/0', value: 9 },
      { op: 'remove', path: '/s/l/3' },
      { op: 'remove', path: '/s/l/2' },
    ]);
    expect(ops?.doc).toEqual({ s: { l: [9, 2] } });
    // a patch that does not fit the document is refused (draftPatch then diffs instead)
    expect(operationsFromPatches({ l: [1] }, [{ op: 'add', path: ['l', 5], value: 1 }])).toBeUndefined();
  });

  it('property: the structural diff (the fallback when immer’s patches do not fit) turns a into b', () => {
    fc.assert(
      fc.property(objectDoc, objectDoc, fc.array(json, { maxLength: 6 }), fc.array(json, { maxLength: 6 }), (a, b, la, lb) => {
        expect(jsonPatch(a, jsonDiff(a, b))).toEqual(b);
        expect(jsonPatch({ l: la }, jsonDiff({ l: la }, { l: lb }))).toEqual({ l: lb });
      }),
      { numRuns: 500 },
    );
    // a removal in the middle of a long list is one operation
    const long = Array.from({ length: 20 }, (_, i) => ({ name: `c${i}` }));
    expect(jsonDiff({ l: long }, { l: long.filter((_, i) => i !== 7) })).toEqual([{ op: 'remove', path: '/l/7' }]);
  });

  it('refuses an async recipe', () => {
    const base = freeze({ a: 1 }, true);
    expect(() => draftPatch(base, (async (d: Draft<{ a: number }>) => void (d.a = 2)) as unknown as Recipe<{ a: number }>)).toThrow(/synchronous/);
  });

  it('property: the operations, applied by the embedded server’s RFC 6902 code, yield the recipe’s result', () => {
    fc.assert(
      fc.property(objectDoc, fc.array(actionArb, { maxLength: 6 }), (spec, actions) => {
        const base = freeze({ metadata: { name: 'p', resourceVersion: '1' }, spec }, true);
        const { result, operations } = draftPatch(base, recipeOf(actions));
        const patched = jsonPatch(asJson(base), [{ op: 'test', path: '/metadata/resourceVersion', value: '1' }, ...operations]);
        expect(patched).toEqual(asJson(result));
        if (operations.length === 0) expect(asJson(result)).toEqual(asJson(base));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('edit against the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  let things: ObjectClient<Thing>;
  let cms: ObjectClient<ConfigMap>;
  let n = 0;
  const fresh = (prefix: string): string => `${prefix}-${++n}`;

  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    await client.objects({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }).create(thingsCrd);
    things = client.objects<Thing>(THINGS, 'default');
    cms = client.objects<ConfigMap>(CM, 'default');
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  const patches = (name: string): number => server.requests.count({ method: 'PATCH', path: new RegExp(`/${name}(/status)?$`) });
  const gets = (name: string): number => server.requests.count({ method: 'GET', path: new RegExp(`/${name}$`) });

  it('property: the server applies the patch to exactly the recipe’s result (custom resource, free-form spec)', async () => {
    await fc.assert(
      fc.asyncProperty(objectDoc, fc.array(actionArb, { minLength: 1, maxLength: 6 }), async (spec, actions) => {
        const created = freeze(await things.create({ apiVersion: THINGS.apiVersion, kind: THINGS.kind, metadata: { name: fresh('prop') }, spec }), true);
        const name = created.metadata?.name ?? '';
        const recipe = recipeOf<Thing>(actions);
        const expected = draftPatch(created, recipe).result;
        const updated = await things.edit(created, recipe);
        expect(asJson(updated.spec)).toEqual(asJson(expected.spec));
        expect(asJson(server.get('example.com/v1', 'Thing', name, 'default')?.['spec'])).toEqual(asJson(expected.spec));
        if (asJson(expected.spec) === asJson(created.spec) || JSON.stringify(asJson(expected.spec)) === JSON.stringify(asJson(created.spec))) {
          expect(patches(name)).toBe(0);
        }
        await things.delete(name);
      }),
      { numRuns: 60 },
    );
  });

  // Keys with ~ (escaped ~0 in the patch) go through the custom resource property above: an
  // annotation key with ~ is a 422 on a cluster.
  it('annotations with /, a ConfigMap’s data, and the returned object is the server’s', async () => {
    const cm = await cms.create({ metadata: { name: fresh('cm'), annotations: { keep: 'me' } }, data: { a: '1', b: '2' } });
    const updated = await cms.edit(freeze(cm, true), (d) => {
      d.metadata ??= {};
      (d.metadata.annotations ??= {})['example.com/x'] = 'slash';
      d.metadata.annotations['a.b_c-d'] = 'dots';
      d.data ??= {};
      delete d.data['a'];
      d.data['c'] = '3';
    });
    expect(updated.metadata?.annotations).toEqual({ keep: 'me', 'example.com/x': 'slash', 'a.b_c-d': 'dots' });
    expect(updated.data).toEqual({ b: '2', c: '3' });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(cm.metadata?.resourceVersion));
  });

  it('a recipe that changes nothing sends no request', async () => {
    const cm = freeze(await cms.create({ metadata: { name: fresh('noop'), labels: { a: '1' } }, data: { a: '1' } }), true);
    const name = cm.metadata?.name ?? '';
    server.requests.clear();
    const same = await cms.edit(cm, (d) => {
      d.metadata ??= {};
      d.metadata.labels = { a: '1' };
      d.data = { ...d.data };
    });
    expect(same).toBe(cm);
    expect(await cms.editStatus(cm, () => undefined)).toBe(cm);
    expect(server.requests.all().filter((r) => r.path.includes(name))).toEqual([]);
  });

  it('negative control: a write between read and patch fails the test; the recipe re-runs on the new copy and both changes land', async () => {
    const created = freeze(await things.create({ apiVersion: THINGS.apiVersion, kind: THINGS.kind, metadata: { name: fresh('race') }, spec: { list: ['a', 'b', 'c'] } }), true);
    const name = created.metadata?.name ?? '';
    let runs = 0;
    const updated = await things.edit(created, (d) => {
      runs++;
      if (runs === 1) {
        // the concurrent writer, between our read and our patch
        const cur = server.get('example.com/v1', 'Thing', name, 'default') as Thing;
        server.update({ ...cur, metadata: { ...cur.metadata, labels: { other: 'writer' } }, spec: { list: ['a', 'b', 'c', 'theirs'] } });
      }
      const list = (d.spec as { list: string[] }).list;
      list.splice(1, 1); // remove 'b' wherever the list now is
    });
    expect(runs).toBe(2);
    expect(updated.metadata?.labels).toEqual({ other: 'writer' });
    expect(updated.spec).toEqual({ list: ['a', 'c', 'theirs'] });
    expect(patches(name)).toBe(2);
    expect(gets(name)).toBe(1);
  });

  it('without the resourceVersion test the same race would lose the other write (why the test is there)', async () => {
    const created = await things.create({ apiVersion: THINGS.apiVersion, kind: THINGS.kind, metadata: { name: fresh('control') }, spec: { list: ['a', 'b', 'c'] } });
    const name = created.metadata?.name ?? '';
    const { operations } = draftPatch(created, (d) => void (d.spec as { list: string[] }).list.splice(1, 1));
    const cur = server.get('example.com/v1', 'Thing', name, 'default') as Thing;
    server.update({ ...cur, spec: { list: ['x', 'a', 'b', 'c'] } }); // the other writer prepends
    const blind = await things.patch(name, operations, 'json');
    expect(operations).toEqual([{ op: 'remove', path: '/spec/list/1' }]);
    expect(blind.spec).toEqual({ list: ['x', 'b', 'c'] }); // index 1 is now 'a': the wrong element went
    const rv = blind.metadata?.resourceVersion;
    const guarded = await things.patch(name, [{ op: 'test', path: '/metadata/resourceVersion', value: created.metadata?.resourceVersion }, ...operations], 'json').catch((e: unknown) => e);
    expect(guarded).toMatchObject({ statusCode: 422, reason: 'Invalid' });
    expect(server.get('example.com/v1', 'Thing', name, 'default')?.metadata?.resourceVersion).toBe(rv);
  });

  it('re-reads from a store that has caught up instead of the server', async () => {
    const created = freeze(await cms.create({ metadata: { name: fresh('store') }, data: { a: '1' } }), true);
    const name = created.metadata?.name ?? '';
    const newer = freeze(await cms.patch(name, { data: { b: '2' } }), true);
    const store = { get: (k: string) => (k === `default/${name}` ? newer : undefined) };
    const updated = await cms.edit(created, (d) => void ((d.data ??= {})['c'] = '3'), { store });
    expect(updated.data).toEqual({ a: '1', b: '2', c: '3' });
    expect(gets(name)).toBe(0);
    // a store still at the version that failed is not trusted: the server is asked
    const stale = { get: () => created };
    const again = await cms.edit(created, (d) => void ((d.data ??= {})['d'] = '4'), { store: stale });
    expect(again.data).toEqual({ a: '1', b: '2', c: '3', d: '4' });
    expect(gets(name)).toBe(1);
  });

  it('gives up with EditConflictError after `attempts`; a 422 at an unchanged resourceVersion is thrown as is', async () => {
    const created = await cms.create({ metadata: { name: fresh('busy') }, data: { n: '0' } });
    const name = created.metadata?.name ?? '';
    let runs = 0;
    const err = await cms
      .edit(created, (d) => {
        runs++;
        const cur = server.get('v1', 'ConfigMap', name, 'default') as ConfigMap;
        server.update({ ...cur, data: { n: String(runs) } }); // someone always writes first
        (d.data ??= {})['mine'] = 'x';
      }, { attempts: 3, retryDelayMs: 0 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EditConflictError);
    expect(err).toMatchObject({ attempts: 3, objectName: name });
    expect((err as EditConflictError).cause).toBeInstanceOf(ApiError);
    expect(runs).toBe(3);

    server.faults.failNext({ method: 'PATCH', path: new RegExp(`/${name}$`), code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
    const invalid = await cms.edit(await cms.get(name), (d) => void ((d.data ??= {})['mine'] = 'y')).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({ statusCode: 422 });
  });

  it('an object without resourceVersion is read first; a recipe may not change resourceVersion', async () => {
    const created = await cms.create({ metadata: { name: fresh('norv') }, data: { a: '1' } });
    const name = created.metadata?.name ?? '';
    const updated = await cms.edit({ metadata: { name, namespace: 'default' } }, (d) => void ((d.data ??= {})['b'] = '2'));
    expect(updated.data).toEqual({ a: '1', b: '2' });
    await expect(cms.edit(updated, (d) => void ((d.metadata ??= {}).resourceVersion = '1'))).rejects.toThrow(/resourceVersion/);
    // a cluster-wide client edits in the object's namespace
    const anywhere = client.objects<ConfigMap>(CM);
    expect((await anywhere.edit(updated, (d) => void ((d.data ??= {})['c'] = '3'))).data).toEqual({ a: '1', b: '2', c: '3' });
  });

  it('editStatus: only /status, through the status subresource', async () => {
    const created = freeze(await things.create({ apiVersion: THINGS.apiVersion, kind: THINGS.kind, metadata: { name: fresh('status') }, spec: { size: 1 } }), true);
    const name = created.metadata?.name ?? '';
    const updated = await things.editStatus(created, (d) => {
      d.status = { phase: 'Ready', conditions: [{ type: 'A' }, { type: 'B' }, { type: 'C' }] };
    });
    expect(updated.status).toEqual({ phase: 'Ready', conditions: [{ type: 'A' }, { type: 'B' }, { type: 'C' }] });
    expect(server.requests.count({ method: 'PATCH', path: new RegExp(`/${name}/status$`) })).toBe(1);
    const again = await things.editStatus(updated, (d) => void (d.status as { conditions: unknown[] }).conditions.splice(1, 1));
    expect(again.status).toEqual({ phase: 'Ready', conditions: [{ type: 'A' }, { type: 'C' }] });
    server.requests.clear();
    await expect(things.editStatus(again, (d) => void (d.spec = { size: 2 }))).rejects.toThrow(/\/spec/);
    expect(server.requests.count({ method: 'PATCH' })).toBe(0);
  });
});

describe('ctx.edit / ctx.editStatus', () => {
  let server: ApiServer;
  let client: KubeClient;
  useEmbeddedServer((s, c) => {
    server = s;
    client = c;
  });

  const contextFor = (object: ConfigMap | undefined, store = new Indexer<ConfigMap>()): ReconcileContext<ConfigMap> =>
    withEdits<ConfigMap>({
      request: { namespace: 'default', name: object?.metadata?.name ?? 'gone' },
      signal: new AbortController().signal,
      logger: noopLogger,
      reconcileId: 'r1',
      // As cached: the objects of these tests were read from the server (name, uid, resourceVersion set).
      object: object as Cached<ConfigMap> | undefined,
      store: store as Store<Cached<ConfigMap>>,
      storeOf: () => {
        throw new Error('unused');
      },
      recorder: noopEventRecorder,
      client,
      fieldManager: 'test',
      expectations: new ControllerExpectations(),
      objects: (() => client.objects<ConfigMap>(CM, 'default')) as ReconcileContext<ConfigMap>['objects'],
    });

  it('edits the reconciled object, then the copy its last edit returned', async () => {
    const cm = freeze(await client.objects<ConfigMap>(CM, 'default').create({ metadata: { name: 'ctx' }, data: { a: '1' } }), true);
    const ctx = contextFor(cm);
    await ctx.edit((d) => void ((d.data ??= {})['b'] = '2'));
    server.requests.clear();
    const second = await ctx.edit((d) => void ((d.data ??= {})['c'] = '3'));
    expect(second.data).toEqual({ a: '1', b: '2', c: '3' });
    expect(server.requests.count({ method: 'PATCH' })).toBe(1); // no conflict: the newest copy was used
    expect(server.requests.count({ method: 'GET' })).toBe(0);
  });

  it('throws ControllerError when there is no object', async () => {
    await expect(contextFor(undefined).edit(() => undefined)).rejects.toBeInstanceOf(ControllerError);
  });
});
