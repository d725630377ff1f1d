/** docs/semantics.md §4.2 (delta → notification mapping): SI-5, SI-6. */
import { from, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { type CacheError, type Delta, DeletedFinalStateUnknown, KeyError, type PoppedDeltas } from '../../src/cache/index.js';
import { applyDeltas } from '../../src/cache/apply-deltas.js';
import { type FifoInput } from '../../src/cache/fifo-op.js';
import { Indexer } from '../../src/cache/indexer.js';
import { type InformerEvent, isResyncUpdate, toInformerEvent } from '../../src/cache/informer-event.js';
import { deltaFifo } from '../../src/cache/delta-fifo.js';
import { handlerEvents } from '../../src/cache/handler-events.js';
import { indexStore } from '../../src/cache/index-store.js';

const o = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const popped = (key: string, deltas: Delta[], isInInitialList = false): PoppedDeltas => ({ key, deltas, isInInitialList });
const render = (e: InformerEvent): string => {
  const v = (x: KubeObject | DeletedFinalStateUnknown) =>
    x instanceof DeletedFinalStateUnknown ? `DFSU(${x.key})` : `${x.metadata?.name}@${x.metadata?.resourceVersion}`;
  switch (e.type) {
    case 'add':
      return `add ${v(e.object)}${e.isInInitialList ? ' initial' : ''}`;
    case 'update':
      return `update ${v(e.old)}->${v(e.object)}${e.resync ? ' resync' : ''}`;
    case 'delete':
      return `delete ${v(e.object)}`;
  }
};

/** Full pipeline: ops → deltaFifo(knownObjects = indexer) → indexStore → handlerEvents. */
function run(indexer: Indexer, ops: FifoInput[]): string[] {
  const out: string[] = [];
  from(ops)
    .pipe(
      deltaFifo({ knownObjects: indexer, emitDeltaTypeReplaced: true, process: (p) => [p] }),
      indexStore(indexer),
      handlerEvents(),
    )
    .subscribe((e) => out.push(render(e)));
  return out;
}

describe('SI-5 Delta → notification mapping', () => {
  it('each delta of a popped batch yields its own notification, oldest first', () => {
    const ix = new Indexer();
    const changes = applyDeltas(
      ix,
      popped('ns/a', [
        { type: 'Added', object: o('a', '1') },
        { type: 'Updated', object: o('a', '2') },
        { type: 'Sync', object: o('a', '2') },
        { type: 'Deleted', object: o('a', '2') },
      ]),
    );
    expect(changes.map(toInformerEvent).map(render)).toEqual([
      'add a@1',
      'update a@1->a@2',
      'update a@2->a@2 resync',
      'delete a@2',
    ]);
    expect(ix.size).toBe(0);
  });
  it('Sync/Replaced/Added/Updated become add when the key is not cached, update when it is', () => {
    for (const type of ['Sync', 'Replaced', 'Added', 'Updated'] as const) {
      const ix = new Indexer();
      const first = applyDeltas(ix, popped('ns/a', [{ type, object: o('a', '1') }], true));
      expect(first.map(toInformerEvent).map(render)).toEqual(['add a@1 initial']);
      const second = applyDeltas(ix, popped('ns/a', [{ type, object: o('a', '2') }]));
      expect(second.map(toInformerEvent).map(render)).toEqual(['update a@1->a@2']);
    }
  });
  it('Deleted notifies even when the key was not cached, and passes tombstones through', () => {
    const ix = new Indexer();
    ix.add(o('b', '1'));
    const tomb = new DeletedFinalStateUnknown('ns/b', o('b', '1'));
    const events = [
      ...applyDeltas(ix, popped('ns/a', [{ type: 'Deleted', object: o('a', '1') }])),
      ...applyDeltas(ix, popped('ns/b', [{ type: 'Deleted', object: tomb }])),
    ].map(toInformerEvent);
    expect(events.map(render)).toEqual(['delete a@1', 'delete DFSU(ns/b)']);
    expect(events[1]?.type === 'delete' && events[1].object).toBe(tomb);
    expect(ix.size).toBe(0);
  });
  it('notifications are emitted after the cache update', () => {
    const ix = new Indexer();
    const seen: Array<[string, string | undefined]> = [];
    from([popped('ns/a', [{ type: 'Added', object: o('a', '1') }, { type: 'Deleted', object: o('a', '1') }])])
      .pipe(indexStore(ix))
      .subscribe((c) => seen.push([c.delta.type, c.store.get('ns/a')?.metadata?.resourceVersion]));
    expect(seen).toEqual([
      ['Added', '1'],
      ['Deleted', undefined],
    ]);
  });
  it('a delete-then-recreate seen only through a relist surfaces as an update', () => {
    const ix = new Indexer();
    const out = run(ix, [
      { type: 'replace', items: [o('a', '1')], resourceVersion: '1' },
      { type: 'replace', items: [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '5', uid: 'new' } }], resourceVersion: '5' },
    ]);
    expect(out).toEqual(['add a@1 initial', 'update a@1->a@5']);
  });
  it('a relist deletes objects missing from it with a tombstone of the cached state', () => {
    const ix = new Indexer();
    const out = run(ix, [
      { type: 'replace', items: [o('a', '1'), o('b', '1')], resourceVersion: '1' },
      { type: 'replace', items: [o('b', '1')], resourceVersion: '2' },
    ]);
    expect(out).toEqual(['add a@1 initial', 'add b@1 initial', 'update b@1->b@1 resync', 'delete DFSU(ns/a)']);
  });
  it('a store write error aborts the remaining deltas of that batch and is reported', () => {
    const ix = new Indexer();
    const errors: CacheError[] = [];
    const changes = applyDeltas(
      ix,
      popped('x', [
        { type: 'Added', object: o('a', '1') },
        { type: 'Updated', object: { kind: 'NoMeta' } },
        { type: 'Updated', object: o('a', '3') },
      ]),
      (e) => errors.push(e),
    );
    expect(changes.map((c) => c.delta.type)).toEqual(['Added']);
    expect(errors[0]).toBeInstanceOf(KeyError);
    expect(ix.get('ns/a')?.metadata?.resourceVersion).toBe('1');
  });
});

describe('SI-6 Sync vs real update', () => {
  it('an update is a resync iff old and new have equal resourceVersion', () => {
    expect(isResyncUpdate(o('a', '1'), o('a', '1'))).toBe(true);
    expect(isResyncUpdate(o('a', '1'), o('a', '2'))).toBe(false);
    expect(isResyncUpdate({ kind: 'NoMeta' }, { kind: 'NoMeta' })).toBe(false);
    expect(isResyncUpdate({ metadata: { name: 'a' } }, { metadata: { name: 'a' } })).toBe(true);
  });
  it('a relist of unchanged objects yields resync updates; changed and new objects do not', () => {
    const ix = new Indexer();
    const source = new Subject<FifoInput>();
    const out: string[] = [];
    source
      .pipe(deltaFifo({ knownObjects: ix, emitDeltaTypeReplaced: true }), indexStore(ix), handlerEvents())
      .subscribe((e) => out.push(render(e)));
    source.next({ type: 'replace', items: [o('pod1', '1'), o('pod2', '1')], resourceVersion: '1' });
    out.length = 0;
    source.next({ type: 'replace', items: [o('pod1', '1'), o('pod2', '2'), o('pod3', '1')], resourceVersion: '2' });
    expect(out).toEqual(['update pod1@1->pod1@1 resync', 'update pod2@1->pod2@2', 'add pod3@1']);
    out.length = 0;
    source.next({ type: 'resync' });
    expect(out.sort()).toEqual(['update pod1@1->pod1@1 resync', 'update pod2@2->pod2@2 resync', 'update pod3@1->pod3@1 resync']);
  });
});
