/** docs/semantics.md §2 (keys, store, indexer), one describe per rule. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { CacheError, DeletedFinalStateUnknown, deletionHandlingKey, IndexFuncError, IndexNotFoundError, KeyError, metaNamespaceIndexFunc, NAMESPACE_INDEX, splitKey } from '../../src/cache/index.js';
import { IndexerConflictError } from '../../src/cache/errors.js';
import { Indexer } from '../../src/cache/indexer.js';
import { joinKey, metaNamespaceKey } from '../../src/cache/keys.js';

const pod = (ns: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { namespace: ns, name, labels },
});
const byLabel = (label: string) => (o: KubeObject) => {
  const v = o.metadata?.labels?.[label];
  return v === undefined ? [] : v.split(',');
};
const names = (objs: KubeObject[]) => objs.map((o) => o.metadata?.name).sort();

describe('ST-1 MetaNamespaceKeyFunc', () => {
  it('joins namespace and name, or uses the bare name for cluster-scoped objects', () => {
    expect(metaNamespaceKey(pod('ns', 'a'))).toBe('ns/a');
    expect(metaNamespaceKey({ metadata: { name: 'node1' } })).toBe('node1');
    expect(metaNamespaceKey({ metadata: { name: 'n', namespace: '' } })).toBe('n');
  });
  it('does not escape or validate slashes in names', () => {
    expect(metaNamespaceKey({ metadata: { name: 'a/b', namespace: 'ns' } })).toBe('ns/a/b');
  });
  it('throws KeyError "object has no meta" without metadata', () => {
    expect(() => metaNamespaceKey({ kind: 'Pod' })).toThrow(KeyError);
    expect(() => metaNamespaceKey({ kind: 'Pod' })).toThrow(/object has no meta/);
  });
});

describe('ST-2 DeletionHandlingMetaNamespaceKeyFunc', () => {
  it('uses a tombstone key, and ST-1 otherwise', () => {
    expect(deletionHandlingKey(new DeletedFinalStateUnknown('ns/x', null))).toBe('ns/x');
    expect(deletionHandlingKey(new DeletedFinalStateUnknown('ns/x', pod('other', 'y')))).toBe('ns/x');
    expect(deletionHandlingKey(pod('ns', 'a'))).toBe('ns/a');
  });
  it('deleting a tombstone from an indexer removes the right entry', () => {
    const ix = new Indexer();
    ix.add(pod('ns', 'a'));
    ix.delete(new DeletedFinalStateUnknown('ns/a', null));
    expect(ix.size).toBe(0);
  });
});

describe('ST-3 SplitMetaNamespaceKey', () => {
  it('splits 1 and 2 part keys without further validation', () => {
    expect(splitKey('name')).toEqual({ namespace: '', name: 'name' });
    expect(splitKey('ns/name')).toEqual({ namespace: 'ns', name: 'name' });
    expect(splitKey('')).toEqual({ namespace: '', name: '' });
    expect(splitKey('/x')).toEqual({ namespace: '', name: 'x' });
    expect(splitKey('ns/')).toEqual({ namespace: 'ns', name: '' });
  });
  it('rejects keys with three or more parts', () => {
    expect(() => splitKey('a/b/c')).toThrow(KeyError);
    expect(() => splitKey('a/b/c')).toThrow(/unexpected key format: "a\/b\/c"/);
  });
  it('property: errors iff more than one slash; join ∘ split is the identity except a leading slash', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'abcdefghi/') }), (key) => {
        const slashes = key.split('/').length - 1;
        if (slashes > 1) {
          expect(() => splitKey(key)).toThrow(KeyError);
          return;
        }
        const { namespace, name } = splitKey(key);
        expect(joinKey(namespace, name)).toBe(key.startsWith('/') ? key.slice(1) : key);
      }),
    );
  });
});

describe('ST-4 KeyError', () => {
  it('wraps the object and the cause; unwrapping reaches the root through nested KeyErrors', () => {
    const root = new Error('root cause');
    const inner = new KeyError({ a: 1 }, root);
    const outer = new KeyError({ b: 2 }, inner);
    expect(outer.object).toEqual({ b: 2 });
    expect(outer.cause).toBe(inner);
    expect(outer.rootCause()).toBe(root);
    expect(outer).toBeInstanceOf(CacheError);
    expect(outer.message).toMatch(/root cause/);
  });
});

describe('ST-5 Store add/update/delete/get/list/replace', () => {
  it('add and update are upserts; delete of an absent key is a no-op; get never throws', () => {
    const ix = new Indexer();
    expect(ix.add(pod('ns', 'a', { v: '1' }))).toBeUndefined();
    const first = ix.get('ns/a');
    expect(ix.update(pod('ns', 'a', { v: '2' }))).toBe(first);
    expect(ix.add(pod('ns', 'a', { v: '3' }))?.metadata?.labels).toEqual({ v: '2' });
    expect(ix.size).toBe(1);
    expect(ix.delete(pod('ns', 'zzz'))).toBeUndefined();
    expect(ix.get('no/such')).toBeUndefined();
    ix.add(pod('ns', 'b'));
    expect(ix.listKeys().sort()).toEqual(['ns/a', 'ns/b']);
    expect(names(ix.list())).toEqual(['a', 'b']);
    expect(ix.delete(pod('ns', 'a'))?.metadata?.labels).toEqual({ v: '3' });
    expect(ix.listKeys()).toEqual(['ns/b']);
  });
  it('a key error stores nothing', () => {
    const ix = new Indexer();
    expect(() => ix.add({ kind: 'NoMeta' })).toThrow(KeyError);
    expect(ix.size).toBe(0);
    expect(ix.indexValues(NAMESPACE_INDEX)).toEqual([]);
  });
  it('replace swaps the content and rebuilds every index', () => {
    const ix = new Indexer({ indexers: { app: byLabel('app') } });
    ix.add(pod('ns1', 'a', { app: 'x' }));
    ix.add(pod('ns1', 'b', { app: 'y' }));
    ix.replace([pod('ns2', 'c', { app: 'y' }), pod('ns2', 'd', { app: 'z' })]);
    expect(ix.listKeys().sort()).toEqual(['ns2/c', 'ns2/d']);
    expect(ix.indexValues('app').sort()).toEqual(['y', 'z']);
    expect(ix.indexKeys('app', 'y')).toEqual(['ns2/c']);
    expect(ix.indexValues(NAMESPACE_INDEX)).toEqual(['ns2']);
  });
  it('replace with a bad object changes nothing', () => {
    const ix = new Indexer();
    ix.add(pod('ns', 'a'));
    expect(() => ix.replace([pod('ns', 'b'), { kind: 'NoMeta' }])).toThrow(KeyError);
    expect(ix.listKeys()).toEqual(['ns/a']);
  });
});

describe('ST-8 Index maintenance on write', () => {
  it('deletes empty buckets and keeps non-empty ones', () => {
    const ix = new Indexer({ indexers: { app: byLabel('app') } });
    ix.add(pod('ns', 'a', { app: 'x' }));
    ix.add(pod('ns', 'b', { app: 'x' }));
    ix.delete(pod('ns', 'a'));
    expect(ix.indexValues('app')).toEqual(['x']);
    expect(ix.indexKeys('app', 'x')).toEqual(['ns/b']);
    ix.delete(pod('ns', 'b'));
    expect(ix.indexValues('app')).toEqual([]);
    expect(ix.indexValues(NAMESPACE_INDEX)).toEqual([]);
  });
  it('moves a key between buckets when multi-valued index values change', () => {
    const ix = new Indexer({ indexers: { users: byLabel('users') } });
    ix.add(pod('ns', 'one', { users: 'ernie,bert' }));
    ix.add(pod('ns', 'two', { users: 'bert,oscar' }));
    ix.add(pod('ns', 'tre', { users: 'ernie,elmo' }));
    expect(ix.indexKeys('users', 'bert')).toEqual(['ns/one', 'ns/two']);
    ix.update(pod('ns', 'one', { users: 'ernie' }));
    expect(ix.indexKeys('users', 'bert')).toEqual(['ns/two']);
    expect(ix.indexKeys('users', 'ernie')).toEqual(['ns/one', 'ns/tre']);
    ix.update(pod('ns', 'tre', { users: 'oscar' }));
    expect(ix.indexKeys('users', 'elmo')).toEqual([]);
    expect(ix.indexValues('users').sort()).toEqual(['bert', 'ernie', 'oscar']);
    ix.delete(pod('ns', 'two'));
    expect(ix.indexValues('users').sort()).toEqual(['ernie', 'oscar']);
  });
  it('a throwing index function is reported as IndexFuncError and changes nothing', () => {
    const ix = new Indexer({
      indexers: {
        picky: (o) => {
          if (o.metadata?.labels?.bad) throw new Error('cannot index');
          return ['ok'];
        },
      },
    });
    ix.add(pod('ns', 'a'));
    expect(() => ix.update(pod('ns', 'a', { bad: 'yes' }))).toThrow(IndexFuncError);
    expect(ix.get('ns/a')?.metadata?.labels).toEqual({});
    expect(ix.indexKeys('picky', 'ok')).toEqual(['ns/a']);
    expect(() => ix.add(pod('ns', 'b', { bad: 'yes' }))).toThrow(IndexFuncError);
    expect(ix.has('ns/b')).toBe(false);
    expect(ix.indexKeys(NAMESPACE_INDEX, 'ns')).toEqual(['ns/a']);
  });
});

describe('ST-9 Queries', () => {
  const ix = new Indexer({ indexers: { users: byLabel('users') } });
  ix.add(pod('ns', 'one', { users: 'ernie,bert' }));
  ix.add(pod('ns', 'two', { users: 'bert,oscar' }));
  ix.add(pod('ns', 'tre', { users: 'ernie,elmo' }));
  it('byIndex returns matching objects; unknown value → []; unknown index → IndexNotFoundError', () => {
    expect(names(ix.byIndex('users', 'ernie'))).toEqual(['one', 'tre']);
    expect(ix.byIndex('users', 'nobody')).toEqual([]);
    expect(() => ix.byIndex('nope', 'x')).toThrow(IndexNotFoundError);
    expect(() => ix.byIndex('nope', 'x')).toThrow('Index with name nope does not exist');
  });
  it('indexKeys returns sorted keys with the same errors', () => {
    expect(ix.indexKeys('users', 'bert')).toEqual(['ns/one', 'ns/two']);
    expect(() => ix.indexKeys('nope', 'x')).toThrow(IndexNotFoundError);
  });
  it('index(name, obj) returns objects sharing any value, deduplicated', () => {
    expect(names(ix.index('users', pod('x', 'probe', { users: 'bert,ernie' })))).toEqual(['one', 'tre', 'two']);
    expect(() => ix.index('nope', pod('x', 'probe'))).toThrow(IndexNotFoundError);
  });
  it('indexValues lists values with at least one key; unknown index → []', () => {
    expect(ix.indexValues('users').sort()).toEqual(['bert', 'elmo', 'ernie', 'oscar']);
    expect(ix.listIndexFuncValues('users').sort()).toEqual(['bert', 'elmo', 'ernie', 'oscar']);
    expect(ix.indexValues('nope')).toEqual([]);
  });
  it('getIndexers returns the registered functions', () => {
    expect(Object.keys(ix.getIndexers()).sort()).toEqual([NAMESPACE_INDEX, 'users']);
  });
});

describe('ST-10 addIndexers', () => {
  it('rejects a name conflict and adds nothing', () => {
    const ix = new Indexer({ indexers: { a: byLabel('a') } });
    expect(() => ix.addIndexers({ b: byLabel('b'), a: byLabel('a') })).toThrow(IndexerConflictError);
    expect(() => ix.addIndexers({ a: byLabel('a') })).toThrow(/indexer conflict: a/);
    expect(Object.keys(ix.getIndexers()).sort()).toEqual(['a', NAMESPACE_INDEX]);
  });
  it('adds indexers to an empty store; rejects them once data is present (deliberate, see EXCLUDED.md)', () => {
    const ix = new Indexer();
    ix.addIndexers({ app: byLabel('app') });
    ix.add(pod('ns', 'a', { app: 'x' }));
    expect(ix.indexKeys('app', 'x')).toEqual(['ns/a']);
    expect(() => ix.addIndexers({ late: byLabel('app') })).toThrow(IndexerConflictError);
    expect(() => ix.byIndex('late', 'x')).toThrow(IndexNotFoundError);
  });
});

describe('ST-11 Built-ins', () => {
  it('the namespace index is always present and indexes by namespace', () => {
    const ix = new Indexer();
    ix.add(pod('ns1', 'a'));
    ix.add(pod('ns2', 'b'));
    ix.add({ metadata: { name: 'node' } });
    expect(NAMESPACE_INDEX).toBe('namespace');
    expect(ix.indexKeys(NAMESPACE_INDEX, 'ns1')).toEqual(['ns1/a']);
    expect(ix.indexKeys(NAMESPACE_INDEX, '')).toEqual(['node']);
  });
  it('metaNamespaceIndexFunc returns [namespace] and throws without metadata', () => {
    expect(metaNamespaceIndexFunc(pod('ns', 'a'))).toEqual(['ns']);
    expect(() => metaNamespaceIndexFunc({ kind: 'X' })).toThrow(/object has no meta/);
  });
});
