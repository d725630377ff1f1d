/**
 * What the write path shares instead of recomputing: one encoded line per watch event for all
 * the watches it goes to, and a manager's stored FieldsV1 when an update changes only fields it
 * owns. Each sharing must leave every watch and every managedFields entry exactly as before.
 */
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { request, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnstructuredObject } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { builtinListTypes, recordUpdate, type ManagedFieldsEntry } from '../src/api-server/server-side-apply.js';
import { isCanonicalFieldsV1 } from '../src/api-server/fields-v1.js';
import { joinShared, SharedEventLines, WatchConnection } from '../src/api-server/watch-hub.js';
import { ObjectStore, type StoredEntry } from '../src/api-server/object-store.js';

/** Opens a watch and collects its parsed lines until `n` have arrived. */
function watchLines(url: string, n: number): { ready: Promise<void>; lines: Promise<Array<{ type: string; object: UnstructuredObject }>> } {
  let opened!: () => void;
  const ready = new Promise<void>((r) => (opened = r));
  const lines = new Promise<Array<{ type: string; object: UnstructuredObject }>>((resolve, reject) => {
    const req = request(url, (res) => {
      opened();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        const got = text.split('\n').filter((l) => l !== '');
        if (text.endsWith('\n') && got.length >= n) {
          req.destroy();
          resolve(got.map((l) => JSON.parse(l) as { type: string; object: UnstructuredObject }));
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
  return { ready, lines };
}

describe('SharedEventLines and joinShared', () => {
  it('builds the line of one event once per type', () => {
    const entry: StoredEntry = { key: 'default/a', object: { apiVersion: 'v1', kind: 'ConfigMap' }, json: '{"apiVersion":"v1","kind":"ConfigMap","data":{"é":"ü"}}', rv: 7 };
    const shared = new SharedEventLines(entry);
    expect(shared.line('MODIFIED')).toBe(`{"type":"MODIFIED","object":${entry.json}}\n`);
    expect(shared.line('ADDED')).toBe(`{"type":"ADDED","object":${entry.json}}\n`);
  });

  it('hands watches that queued the same lines in one turn the same bytes, encoded once', async () => {
    await new Promise((r) => setImmediate(r));
    const lines = ['{"type":"ADDED","object":{"k":"é"}}\n', '{"type":"MODIFIED","object":{"k":"ü"}}\n'];
    const first = joinShared([...lines]);
    expect(first).toBe(lines.join(''));
    const second = joinShared([...lines]);
    expect(Buffer.isBuffer(second)).toBe(true);
    expect(joinShared([...lines])).toBe(second);
    expect((second as Buffer).toString('utf8')).toBe(lines.join(''));
    // Other lines are joined for themselves; the next turn forgets the batch.
    expect(joinShared([lines[1] as string, lines[0] as string])).toBe(`${lines[1]}${lines[0]}`);
    await new Promise((r) => setImmediate(r));
    expect(joinShared([...lines])).toBe(lines.join(''));
  });
});

describe('embedded API server: watches of one event share its line', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 3_600_000 });
  });
  afterAll(() => server.close());

  it('gives each watch its own event type (selectors) and the stored object, for many events in one write', async () => {
    const [cm] = server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'default', labels: { tier: 'a' } }, data: { k: 'é' } }]);
    const rv = server.resourceVersion;
    const base = `${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`;
    const all = watchLines(base, 41);
    const tierB = watchLines(`${base}&labelSelector=tier%3Db`, 1);
    await Promise.all([all.ready, tierB.ready]);
    const current = () => server.get('v1', 'ConfigMap', 'shared', 'default') as UnstructuredObject;
    // One change moves the object into the tier=b selector: ADDED for that watch, MODIFIED for the others.
    server.update({ ...current(), metadata: { ...current().metadata, labels: { tier: 'b' } } });
    for (let i = 0; i < 40; i++) server.update({ ...current(), data: { k: `v${i}` } });
    const [a, b] = await Promise.all([all.lines, tierB.lines]);
    expect(a.map((e) => e.type)).toEqual(Array.from({ length: 41 }, () => 'MODIFIED'));
    expect(a[40]?.object).toEqual(current());
    expect(b[0]?.type).toBe('ADDED');
    expect(b[0]?.object.metadata?.labels).toEqual({ tier: 'b' });
    expect(b[0]?.object.metadata?.uid).toBe(cm?.metadata?.uid);
  });

  it('writes shared event lines and its own lines (a BOOKMARK) queued together in stream order', async () => {
    const store = new ObjectStore(100);
    const written: Array<string | Buffer> = [];
    const res = Object.assign(new EventEmitter(), {
      write: (chunk: string | Buffer) => written.push(chunk) > 0,
      end: () => undefined,
    }) as unknown as ServerResponse;
    const conn = new WatchConnection(res, { filter: { resourceId: '/configmaps', namespace: undefined, matches: () => true }, kind: 'ConfigMap', apiVersion: 'v1', bookmarks: false, bookmarkIntervalMs: 0, timeoutMs: undefined, maxEvents: undefined }, store, () => undefined);
    store.onEvent((e) => conn.deliver(e, new SharedEventLines(e.entry)));
    store.put('/configmaps', 'default/a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'ü' } });
    conn.bookmark();
    store.put('/configmaps', 'default/a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { k: 'é' } });
    await new Promise((r) => setImmediate(r));
    expect(written).toHaveLength(1);
    const lines = Buffer.isBuffer(written[0]) ? written[0].toString('utf8') : String(written[0]);
    expect(lines.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['ADDED', 'BOOKMARK', 'MODIFIED']);
    expect(lines).toContain('"k":"é"');
    conn.end();
  });
});

describe('recordUpdate keeps a manager\'s stored FieldsV1 when nothing new is owned', () => {
  const old = (fieldsV1: Record<string, unknown>, others: ManagedFieldsEntry[] = []): UnstructuredObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', labels: { a: '1' }, managedFields: [{ manager: 'me', operation: 'Update', apiVersion: 'v1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1 }, ...others] },
    data: { x: '1' },
  });
  const next = (data: Record<string, string>): UnstructuredObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: '1' } }, data });

  it('shares the stored FieldsV1 object when the update changes only owned fields', () => {
    const fieldsV1 = { 'f:data': { 'f:x': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } };
    const out = recordUpdate(old(fieldsV1), next({ x: '2' }), 'me', builtinListTypes);
    expect(out).toHaveLength(1);
    expect(out[0]?.fieldsV1).toBe(fieldsV1);
    expect(out[0]?.time).not.toBe('2020-01-01T00:00:00Z');
  });

  it('adds a newly set field (sorted), and takes it from another manager', () => {
    const fieldsV1 = { 'f:data': { 'f:x': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } };
    const other: ManagedFieldsEntry = { manager: 'them', operation: 'Update', apiVersion: 'v1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:w': {} } } };
    const before = old(fieldsV1, [other]);
    const out = recordUpdate({ ...before, data: { x: '1', w: '0' } }, next({ x: '1', w: '1' }), 'me', builtinListTypes);
    expect(out.map((e) => e.manager)).toEqual(['me']);
    expect(out[0]?.fieldsV1).toEqual({ 'f:data': { 'f:w': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { 'f:a': {} } } });
    expect(Object.keys((out[0]?.fieldsV1 as Record<string, Record<string, unknown>>)['f:data'] ?? {})).toEqual(['f:w', 'f:x']);
  });

  it('rewrites a stored FieldsV1 that is not in canonical order even when nothing new is owned', () => {
    const unsorted = { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:data': { 'f:x': {} } };
    expect(isCanonicalFieldsV1(unsorted)).toBe(false);
    const out = recordUpdate(old(unsorted), next({ x: '2' }), 'me', builtinListTypes);
    expect(out[0]?.fieldsV1).not.toBe(unsorted);
    expect(Object.keys(out[0]?.fieldsV1 ?? {})).toEqual(['f:data', 'f:metadata']);
  });

  it('isCanonicalFieldsV1: plain objects with sorted keys all the way down', () => {
    expect(isCanonicalFieldsV1({})).toBe(true);
    expect(isCanonicalFieldsV1({ '.': {}, 'f:a': { 'k:{"name":"x"}': { '.': {}, 'f:name': {} } } })).toBe(true);
    // A member with nothing below it is `{}` (as kube-apiserver writes it), not `{".": {}}`.
    expect(isCanonicalFieldsV1({ 'f:a': { 'k:{"name":"x"}': { '.': {} } } })).toBe(false);
    expect(isCanonicalFieldsV1({ 'f:a': { 'f:c': {}, 'f:b': {} } })).toBe(false);
    expect(isCanonicalFieldsV1({ 'f:a': true })).toBe(false);
    expect(isCanonicalFieldsV1({ 'f:a': [] })).toBe(false);
  });
});

/**
 * A model of kube-apiserver's field manager for non-apply writes (structured-merge-diff), written
 * apart from the server's: each set is a set of member paths (JSON strings), the comparison an
 * Added / Modified / Removed walk, sets reconciled with the live object first (a field owned
 * whole whose value has fields is owned as them), then the set algebra: the writer gains Added
 * and Modified, the others lose exactly those paths, everyone loses Removed, empty sets go.
 * The property checks the server's FieldsV1-sharing recording against it.
 */
function referenceRecordUpdate(old: UnstructuredObject | undefined, next: UnstructuredObject, manager: string): ManagedFieldsEntry[] {
  type O = Record<string, unknown>;
  const isO = (v: unknown): v is O => typeof v === 'object' && v !== null && !Array.isArray(v);
  const empty = (v: unknown): boolean => v === undefined || (isO(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
  const itemKey = (item: unknown, keys: readonly string[] | undefined): string => {
    if (keys !== undefined && isO(item)) {
      const k: O = {};
      for (const f of keys) {
        const v = item[f] ?? (f === 'protocol' ? 'TCP' : undefined);
        if (v !== undefined) k[f] = v;
      }
      return `k:${JSON.stringify(k)}`;
    }
    return `v:${JSON.stringify(item)}`;
  };
  const firstByKey = (list: unknown, keys: readonly string[] | undefined): Map<string, unknown> => {
    const m = new Map<string, unknown>();
    if (Array.isArray(list)) for (const item of list) if (!m.has(itemKey(item, keys))) m.set(itemKey(item, keys), item);
    return m;
  };
  const tracked = (names: readonly string[], k: string): boolean =>
    !(names.length === 0 && (k === 'apiVersion' || k === 'kind')) && !(names.length === 1 && names[0] === 'metadata' && !['labels', 'annotations', 'finalizers', 'ownerReferences'].includes(k));
  const J = (p: readonly string[]): string => JSON.stringify(p);
  // Sets of member paths.
  const members = (f: unknown, prefix: string[] = [], out = new Set<string>()): Set<string> => {
    if (!isO(f)) return out;
    for (const [k, c] of Object.entries(f)) {
      if (k === '.') continue;
      const p = [...prefix, k];
      if (isO(c) && (Object.keys(c).length === 0 || '.' in c)) out.add(J(p));
      members(c, p, out);
    }
    return out;
  };
  const fieldsV1Of = (set: Set<string>): O => {
    type Node = { member: boolean; children: Map<string, Node> };
    const root: Node = { member: false, children: new Map() };
    for (const s of set) {
      let n = root;
      for (const k of JSON.parse(s) as string[]) {
        let c = n.children.get(k);
        if (c === undefined) n.children.set(k, (c = { member: false, children: new Map() }));
        n = c;
      }
      n.member = true;
    }
    const write = (n: Node): O => {
      const o: O = {};
      if (n.member && n.children.size > 0) o['.'] = {};
      for (const k of [...n.children.keys()].sort()) o[k] = write(n.children.get(k) as Node);
      return o;
    };
    return write(root);
  };
  // ToFieldSet of a value: its leaves and list items.
  const fieldSet = (v: unknown, names: string[], prefix: string[], out: Set<string>): void => {
    if (isO(v) && !('matchLabels' in v || 'matchExpressions' in v)) {
      for (const [k, c] of Object.entries(v)) if (c !== undefined && tracked(names, k)) fieldSet(c, [...names, k], [...prefix, `f:${k}`], out);
    } else if (Array.isArray(v) && builtinListTypes(names).type !== 'atomic') {
      const lt = builtinListTypes(names);
      const keys = lt.type === 'map' ? lt.keys : undefined;
      // (of items with one key, the last: as an apply's set is made)
      const last = new Map<string, unknown>();
      for (const item of v) last.set(itemKey(item, keys), item);
      for (const [ik, item] of last) {
        out.add(J([...prefix, ik]));
        if (keys !== undefined) fieldSet(item, names, [...prefix, ik], out);
      }
    } else out.add(J(prefix));
  };
  // The value at a member path, and the field names leading to it.
  const at = (obj: unknown, path: readonly string[]): [unknown, string[]] => {
    let v = obj;
    const names: string[] = [];
    for (const k of path) {
      if (k.startsWith('f:')) {
        names.push(k.slice(2));
        v = isO(v) ? v[k.slice(2)] : undefined;
      } else {
        const lt = builtinListTypes(names);
        v = firstByKey(v, lt.type === 'map' ? lt.keys : undefined).get(k);
      }
    }
    return [v, names];
  };
  const reconcile = (set: Set<string>, live: unknown): Set<string> => {
    const out = new Set(set);
    for (const s of set) {
      const p = JSON.parse(s) as string[];
      if ([...set].some((o) => o !== s && o.startsWith(s.slice(0, -1) + ','))) continue; // not a leaf
      const [v, names] = at(live, p);
      const granular = (isO(v) && Object.keys(v).length > 0 && !('matchLabels' in v || 'matchExpressions' in v)) || (Array.isArray(v) && v.length > 0 && builtinListTypes(names).type !== 'atomic');
      if (granular) fieldSet(v, names, p, out);
    }
    return out;
  };
  const added = new Set<string>();
  const modified = new Set<string>();
  const removed = new Set<string>();
  const compare = (a: unknown, b: unknown, names: string[], prefix: string[]): void => {
    const mapLike = (v: unknown) => v === undefined || (isO(v) && !('matchLabels' in v || 'matchExpressions' in v));
    const lt = builtinListTypes(names);
    if (mapLike(a) && mapLike(b) && !(empty(a) && empty(b))) {
      const ao = (a ?? {}) as O;
      const bo = (b ?? {}) as O;
      for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
        if (!tracked(names, k)) continue;
        const p = [...prefix, `f:${k}`];
        compare(ao[k], bo[k], [...names, k], p);
        if (ao[k] !== undefined && bo[k] === undefined) removed.add(J(p));
      }
    } else if ((a === undefined || Array.isArray(a)) && (b === undefined || Array.isArray(b)) && lt.type !== 'atomic' && !(empty(a) && empty(b))) {
      const keys = lt.type === 'map' ? lt.keys : undefined;
      const am = firstByKey(a, keys);
      const bm = firstByKey(b, keys);
      for (const ik of new Set([...am.keys(), ...bm.keys()])) {
        const p = [...prefix, ik];
        if (keys !== undefined && JSON.stringify(am.get(ik)) !== JSON.stringify(bm.get(ik))) compare(am.get(ik), bm.get(ik), names, p);
        if (!am.has(ik)) added.add(J(p));
        else if (!bm.has(ik)) removed.add(J(p));
      }
    } else if (a === undefined && b !== undefined) added.add(J(prefix));
    else if (b === undefined && a !== undefined) removed.add(J(prefix));
    else if (JSON.stringify(a) !== JSON.stringify(b)) modified.add(J(prefix));
  };
  const strip = (o: UnstructuredObject | undefined): O => {
    const m = { ...((o?.metadata ?? {}) as O) };
    delete m['managedFields'];
    const x: O = { ...(o ?? {}), metadata: m };
    delete x['status'];
    return x;
  };
  compare(strip(old), strip(next), [], []);
  const entries = [...((old?.metadata?.managedFields ?? []) as readonly ManagedFieldsEntry[])];
  if (added.size + modified.size + removed.size === 0) return entries;
  const gained = new Set([...added, ...modified]);
  const mine = (e: ManagedFieldsEntry): boolean => e.manager === manager && e.operation === 'Update' && (e.subresource ?? '') === '';
  const out: ManagedFieldsEntry[] = [];
  let own: Set<string> | undefined;
  for (const e of entries) {
    const set = reconcile(members(e.fieldsV1), strip(old));
    for (const p of removed) set.delete(p);
    if (mine(e)) {
      if (gained.size > 0) own = set;
      else if (set.size > 0) out.push({ ...e, fieldsV1: fieldsV1Of(set) });
      continue;
    }
    for (const p of gained) set.delete(p);
    if (set.size > 0) out.push({ ...e, fieldsV1: fieldsV1Of(set) });
  }
  if (gained.size > 0) out.push({ manager, operation: 'Update', apiVersion: next.apiVersion ?? '', time: 'T', fieldsType: 'FieldsV1', fieldsV1: fieldsV1Of(new Set([...(own ?? []), ...gained])) });
  return out;
}

describe('recordUpdate on random writes (property)', () => {
  const map = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('1', '2', '3'), { maxKeys: 4 });
  const object = fc.record({
    labels: map,
    data: map,
    env: fc.array(fc.record({ name: fc.constantFrom('x', 'y', 'z'), value: fc.constantFrom('1', '2') }), { maxLength: 3 }),
    ports: fc.array(fc.record({ containerPort: fc.constantFrom(80, 443), protocol: fc.constantFrom(undefined, 'TCP', 'UDP') }, { requiredKeys: ['containerPort'] }), { maxLength: 3 }),
    args: fc.array(fc.constantFrom('-v', '-q'), { maxLength: 2 }),
    finalizers: fc.array(fc.constantFrom('f/a', 'f/b'), { maxLength: 2 }),
  });
  type Shape = typeof object extends fc.Arbitrary<infer T> ? T : never;
  const toObject = (o: Shape, managedFields?: ManagedFieldsEntry[]): UnstructuredObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: o.labels, finalizers: o.finalizers, ...(managedFields !== undefined ? { managedFields } : {}) },
    spec: { containers: [{ name: 'c', env: o.env, ports: o.ports, args: o.args }], data: o.data },
  });
  const untimed = (entries: readonly ManagedFieldsEntry[]) => entries.map((e) => ({ ...e, time: 'T' }));

  it('records what a member-path model of kube-apiserver\'s field manager does, with every set in canonical form', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(object, fc.constantFrom('me', 'them', 'kubelet')), { minLength: 1, maxLength: 5 }), (writes) => {
        let current: UnstructuredObject | undefined;
        for (const [o, manager] of writes) {
          const sent = toObject(o);
          const got = recordUpdate(current, sent, manager, builtinListTypes);
          expect(untimed(got)).toEqual(untimed(referenceRecordUpdate(current, sent, manager)));
          for (const e of got) expect(isCanonicalFieldsV1(e.fieldsV1)).toBe(true);
          current = toObject(o, got);
        }
      }),
      { numRuns: 300 },
    );
  });
});
