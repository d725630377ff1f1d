import { describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { Indexer } from '../../src/cache/indexer.js';

const pod = (): UnstructuredObject => ({
  metadata: { name: 'a', namespace: 'ns', labels: { app: 'x' } },
  spec: { containers: [{ name: 'c', image: 'i' }] },
});

describe('Indexer freezing', () => {
  it("'deep' freezes every nested field: a handler that mutates one throws", () => {
    const ix = new Indexer({ freeze: 'deep' });
    ix.add(pod());
    const cached = ix.get('ns/a') as { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ image: string }> } };
    expect(() => {
      cached.metadata.labels.app = 'y';
    }).toThrow(TypeError);
    expect(() => {
      (cached.spec.containers[0] as { image: string }).image = 'evil';
    }).toThrow(TypeError);
  });
  it("'shallow' (default) freezes the object and its direct children only", () => {
    const ix = new Indexer();
    ix.add(pod());
    const cached = ix.get('ns/a') as { kind?: string; metadata: { labels: Record<string, string>; name: string } };
    expect(() => {
      cached.kind = 'Evil';
    }).toThrow(TypeError);
    expect(() => {
      cached.metadata.name = 'b';
    }).toThrow(TypeError);
    expect(Object.isFrozen(cached.metadata.labels)).toBe(false);
  });
  it("'none' leaves objects mutable", () => {
    const ix = new Indexer({ freeze: 'none' });
    ix.add(pod());
    expect(Object.isFrozen(ix.get('ns/a'))).toBe(false);
  });
});

describe('Indexer read API', () => {
  it('returns fresh arrays the caller may keep or change', () => {
    const ix = new Indexer();
    ix.add(pod());
    const list = ix.list();
    const keys = ix.indexKeys('namespace', 'ns');
    list.pop();
    keys.pop();
    expect(ix.list()).toHaveLength(1);
    expect(ix.indexKeys('namespace', 'ns')).toEqual(['ns/a']);
  });
  it('reads during a write see the state before or after, never between (index and items agree)', () => {
    const seen: string[][] = [];
    const ix: Indexer = new Indexer({
      indexers: {
        spy: (o) => {
          // an index function runs in the middle of a write: the store still shows the old state
          seen.push(ix.listKeys());
          return [o.metadata?.name ?? ''];
        },
      },
    });
    ix.add(pod());
    expect(seen).toEqual([[]]);
    expect(ix.byIndex('spy', 'a')).toHaveLength(1);
  });
});
