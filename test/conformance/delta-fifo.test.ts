/**
 * docs/semantics.md §1 (DeltaFIFO), one describe per rule. State rules run against `DeltaQueue`, the
 * synchronous state machine of `deltaFifo`; rules about the consumer (DF-10, DF-12 timing) run
 * through the operator.
 */
import { from, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown, KeyError, type PoppedDeltas, TransformError } from '../../src/cache/index.js';
import { fifoKeyOf } from '../../src/cache/keys.js';
import { type FifoInput } from '../../src/cache/fifo-op.js';
import { deltaFifo } from '../../src/cache/delta-fifo.js';
import { known, obj, popAll, queue, show } from './fifo-helpers.js';

const add = (o: KubeObject): FifoInput => ({ type: 'add', object: o });
const update = (o: KubeObject): FifoInput => ({ type: 'update', object: o });
const del = (o: KubeObject | DeletedFinalStateUnknown): FifoInput => ({ type: 'delete', object: o });
const replace = (...items: KubeObject[]): FifoInput => ({ type: 'replace', items, resourceVersion: '0' });
const resync: FifoInput = { type: 'resync' };

describe('DF-1 KeyOf', () => {
  it('uses the newest delta of a Deltas, a tombstone key, or the key function', () => {
    expect(fifoKeyOf(obj('foo', 1))).toBe('foo');
    expect(fifoKeyOf(new DeletedFinalStateUnknown('ns/gone', null))).toBe('ns/gone');
    expect(
      fifoKeyOf([
        { type: 'Added', object: obj('old', 1) },
        { type: 'Deleted', object: new DeletedFinalStateUnknown('tomb', null) },
      ]),
    ).toBe('tomb');
    expect(fifoKeyOf([{ type: 'Added', object: obj('a', 1) }, { type: 'Updated', object: obj('b', 2) }])).toBe('b');
  });
  it('throws KeyError for an empty Deltas or an object without metadata', () => {
    expect(() => fifoKeyOf([])).toThrow(KeyError);
    expect(() => fifoKeyOf([])).toThrow(/0 length Deltas/);
    expect(() => fifoKeyOf({ kind: 'Pod' })).toThrow(KeyError);
  });
});

describe('DF-2 Add / Update', () => {
  it('appends to the key and keeps the queue position of a waiting key', () => {
    const { q } = queue();
    q.apply(add(obj('foo', 10)));
    q.apply(add(obj('bar', 1)));
    q.apply(update(obj('foo', 12)));
    expect(q.listKeys()).toEqual(['foo', 'bar']);
    expect(popAll(q)).toEqual(['foo: Added foo=10, Updated foo=12', 'bar: Added bar=1']);
  });
  it('marks the queue populated (a fresh queue syncs on its first add)', () => {
    const { q } = queue();
    expect(q.hasSynced).toBe(false);
    q.apply(add(obj('foo', 10)));
    expect(q.hasSynced).toBe(true);
  });
});

describe('DF-3 Queue ordering / no line jumping', () => {
  it('pops keys in first-entry order; a popped key re-enters at the back', () => {
    const { q } = queue();
    for (const [n, v] of [['foo', 10], ['bar', 1], ['foo', 11], ['foo', 13], ['zab', 30]] as const) q.apply(add(obj(n, v)));
    const first = q.pop() as PoppedDeltas;
    expect(first.key).toBe('foo');
    expect(first.deltas.map(show)).toEqual(['Added foo=10', 'Added foo=11', 'Added foo=13']);
    q.apply(add(obj('foo', 14)));
    expect(popAll(q)).toEqual(['bar: Added bar=1', 'zab: Added zab=30', 'foo: Added foo=14']);
  });
});

describe('DF-4 Delete (no knownObjects)', () => {
  it('ignores a delete of a key with no queued deltas', () => {
    const { q, errors } = queue();
    q.apply(add(obj('foo', 10)));
    q.apply(update(obj('bar', 15)));
    q.apply(add(obj('qux', 17)));
    q.apply(del(obj('qux', 18)));
    q.apply(del(obj('baz', 20)));
    expect(popAll(q).map((s) => s.split(', ').at(-1))).toEqual(['foo: Added foo=10', 'bar: Updated bar=15', 'Deleted qux=18']);
    expect(errors).toEqual([]);
  });
  it('marks the queue populated even when the delete is ignored', () => {
    const { q } = queue();
    q.apply(del(obj('nobody', 1)));
    expect(q.length).toBe(0);
    expect(q.hasSynced).toBe(true);
  });
});

describe('DF-5 Delete (with knownObjects)', () => {
  it('queues a delete of a key the cache knows', () => {
    const { q } = queue({ knownObjects: known(obj('foo', 5), obj('bar', 6), obj('baz', 7)) });
    q.apply(add(obj('foo', 10)));
    q.apply(update(obj('bar', 15)));
    q.apply(del(obj('baz', 20)));
    expect(popAll(q)).toEqual(['foo: Added foo=10', 'bar: Updated bar=15', 'baz: Deleted baz=20']);
  });
  it('queues a delete of a key with queued deltas even if the cache does not know it', () => {
    const { q } = queue({ knownObjects: known() });
    q.apply(add(obj('foo', 10)));
    q.apply(del(obj('foo', 10)));
    expect(popAll(q)).toEqual(['foo: Added foo=10, Deleted foo=10']);
  });
  it('drops a delete unknown to both the cache and the queue', () => {
    const { q } = queue({ knownObjects: known(obj('other', 1)) });
    q.apply(del(obj('foo', 10)));
    expect(q.length).toBe(0);
  });
});

describe('DF-6 Dedup (only consecutive deletions)', () => {
  it('collapses two trailing Deleted deltas, keeping the one with more information', () => {
    const { q } = queue();
    q.apply(add(obj('a', 1)));
    q.apply(del(obj('a', 2)));
    q.apply(del(obj('a', 3)));
    expect(q.getDeltas('a')?.map(show)).toEqual(['Added a=1', 'Deleted a=2']);
  });
  it('prefers a plain object over an older tombstone', () => {
    const { q } = queue();
    q.apply(add(obj('a', 1)));
    q.apply(del(new DeletedFinalStateUnknown('a', obj('a', 1))));
    q.apply(del(obj('a', 2)));
    expect(q.getDeltas('a')?.map(show)).toEqual(['Added a=1', 'Deleted a=2']);
  });
  it('leaves a single tombstone after repeated replaces', () => {
    const { q } = queue();
    q.apply(add(obj('a', 1)));
    q.apply(replace());
    q.apply(replace());
    expect(q.getDeltas('a')?.map(show)).toEqual(['Added a=1', 'Deleted DFSU(a,a=1)']);
  });
  it('never dedups other pairs: Sync,Sync and Added,Added and Deleted,Added,Deleted stay', () => {
    const { q } = queue({ knownObjects: known(obj('s', 1)) });
    q.apply(add(obj('s', 1)));
    q.apply(replace(obj('s', 1)));
    q.apply(replace(obj('s', 1)));
    q.apply(replace());
    expect(q.getDeltas('s')?.map(show)).toEqual(['Added s=1', 'Sync s=1', 'Sync s=1', 'Deleted DFSU(s,s=1)']);
    q.apply(add(obj('x', 1)));
    q.apply(add(obj('x', 1)));
    expect(q.getDeltas('x')?.map(show)).toEqual(['Added x=1', 'Added x=1']);
    q.apply(add(obj('y', 1)));
    q.apply(del(obj('y', 1)));
    q.apply(add(obj('y', 2)));
    q.apply(del(obj('y', 2)));
    expect(q.getDeltas('y')?.map(show)).toEqual(['Added y=1', 'Deleted y=1', 'Added y=2', 'Deleted y=2']);
  });
});

describe('DF-7 Transformer', () => {
  it('transforms each object exactly once, not tombstones, not resync copies', () => {
    const seen: string[] = [];
    const transform = (o: KubeObject): KubeObject & { transformed?: boolean } => {
      seen.push(o.metadata?.name as string);
      return { ...o, transformed: true };
    };
    const k: UnstructuredObject = { metadata: { name: 'k', resourceVersion: '1' }, transformed: true };
    const knownObjs = known(k);
    const { q } = queue({ transform, knownObjects: knownObjs });
    q.apply(add(obj('foo', 1)));
    q.apply(update(obj('foo', 2)));
    q.apply(del(obj('foo', 3)));
    q.apply(replace(obj('bar', 1))); // queues Sync bar (internally Replaced → transformed), DFSU for foo and k
    q.apply(del(new DeletedFinalStateUnknown('zz', obj('zz', 1))));
    expect(seen).toEqual(['foo', 'foo', 'foo', 'bar']);
    const foo = q.getDeltas('foo') ?? [];
    expect(foo.every((d) => d.object instanceof DeletedFinalStateUnknown || (d.object as UnstructuredObject).transformed)).toBe(true);
    expect((q.getDeltas('bar')?.[0]?.object as UnstructuredObject).transformed).toBe(true);
    popAll(q);
    q.apply(resync);
    expect(seen).toEqual(['foo', 'foo', 'foo', 'bar']);
    expect(q.getDeltas('k')?.map(show)).toEqual(['Sync k=1']);
  });
  it('a failing transform aborts that one enqueue and is reported', () => {
    const { q, errors } = queue({
      transform: (o) => {
        if (o.metadata?.name === 'bad') throw new Error('boom');
        return o;
      },
    });
    q.apply(add(obj('bad', 1)));
    q.apply(add(obj('good', 1)));
    expect(q.listKeys()).toEqual(['good']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TransformError);
    expect((errors[0] as TransformError).object).toEqual(obj('bad', 1));
  });
});

describe('DF-8 Replace(list, rv)', () => {
  it('queues Sync for listed objects and a tombstone with the newest queued object for missing keys', () => {
    const { q } = queue();
    q.apply(add(obj('foo', 5)));
    q.apply(add(obj('bar', 6)));
    q.apply(del(obj('bar', 6)));
    q.apply(add(obj('bar', 100)));
    q.apply(replace(obj('foo', 7)));
    expect(popAll(q)).toEqual([
      'foo: Added foo=5, Sync foo=7',
      'bar: Added bar=6, Deleted bar=6, Added bar=100, Deleted DFSU(bar,bar=100)',
    ]);
  });
  it('keeps a trailing plain Deleted instead of adding a tombstone', () => {
    const { q } = queue();
    q.apply(add(obj('baz', 10)));
    q.apply(del(obj('baz', 10)));
    q.apply(replace());
    expect(popAll(q)).toEqual(['baz: Added baz=10, Deleted baz=10']);
  });
  it('appends Sync after a pending Deleted', () => {
    const { q } = queue({ knownObjects: known(obj('foo', 5)) });
    q.apply(del(obj('foo', 5)));
    q.apply(replace(obj('foo', 6)));
    expect(popAll(q)).toEqual(['foo: Deleted foo=5, Sync foo=6']);
  });
  it('emits Replaced when emitDeltaTypeReplaced is set', () => {
    const { q } = queue({ emitDeltaTypeReplaced: true });
    q.apply(add(obj('foo', 1)));
    q.apply(replace(obj('foo', 2), obj('new', 1)));
    q.apply(replace(obj('new', 1)));
    expect(popAll(q)).toEqual(['foo: Added foo=1, Replaced foo=2, Deleted DFSU(foo,foo=2)', 'new: Replaced new=1, Replaced new=1']);
  });
  it('tombstones known keys missing from the list, carrying the known object', () => {
    const { q } = queue({ knownObjects: known(obj('foo', 5), obj('bar', 6), obj('baz', 7)) });
    q.apply(replace(obj('foo', 5)));
    const out = popAll(q).sort();
    expect(out).toEqual(['bar: Deleted DFSU(bar,bar=6)', 'baz: Deleted DFSU(baz,baz=7)', 'foo: Sync foo=5']);
  });
  it('a tombstone for an unknown known-object uses null', () => {
    const k = known(obj('ghost', 1));
    const ghostless = { listKeys: () => k.listKeys(), get: () => undefined };
    const { q } = queue({ knownObjects: ghostless });
    q.apply(replace());
    expect(popAll(q)).toEqual(['ghost: Deleted DFSU(ghost,null)']);
  });
  it('a queued tombstone is unwrapped, not nested, on a second replace', () => {
    const { q } = queue();
    q.apply(add(obj('a', 1)));
    q.apply(replace(obj('b', 1)));
    q.apply(add(obj('a', 2)));
    q.apply(replace(obj('b', 1)));
    expect(q.getDeltas('a')?.map(show)).toEqual(['Added a=1', 'Deleted DFSU(a,a=1)', 'Added a=2', 'Deleted DFSU(a,a=2)']);
  });
});

describe('DF-9 Resync', () => {
  it('queues Sync for every known key without pending deltas', () => {
    const { q } = queue({ knownObjects: known(obj('foo', 1), obj('bar', 2)) });
    q.apply(update(obj('bar', 3)));
    q.apply(resync);
    expect(popAll(q)).toEqual(['bar: Updated bar=3', 'foo: Sync foo=1']);
  });
  it('does not add Sync over a pending Delete', () => {
    const { q } = queue({ knownObjects: known(obj('foo', 1)) });
    q.apply(del(obj('foo', 1)));
    q.apply(resync);
    expect(popAll(q)).toEqual(['foo: Deleted foo=1']);
  });
  it('is a no-op without knownObjects', () => {
    const { q } = queue();
    q.apply(resync);
    expect(q.length).toBe(0);
  });
});

describe('DF-10 Pop(process)', () => {
  it('hands each key its full history with isInInitialList, one batch at a time, then completes after close', () => {
    const out: Array<[string, string[], boolean]> = [];
    const sawQueued: boolean[] = [];
    const k = known();
    const q$ = from<FifoInput[]>([replace(obj('a', 1), obj('b', 1)), update(obj('a', 2)), add(obj('c', 1))]);
    let completed = false;
    q$.pipe(
      deltaFifo({
        knownObjects: k,
        process: (p) => {
          sawQueued.push(k.map.has(p.key));
          return [[p.key, p.deltas.map(show), p.isInInitialList] as [string, string[], boolean]];
        },
      }),
    ).subscribe({ next: (x) => out.push(x), complete: () => (completed = true) });
    // the source is synchronous: the first replace pops a at once; update a queues behind b
    expect(out).toEqual([
      ['a', ['Sync a=1'], true],
      ['b', ['Sync b=1'], true],
      ['a', ['Updated a=2'], false],
      ['c', ['Added c=1'], false],
    ]);
    expect(completed).toBe(true);
    expect(sawQueued).toEqual([false, false, false, false]);
  });
  it('a closed queue keeps handing out waiting keys before completing', () => {
    const source = new Subject<FifoInput>();
    const gate = new Subject<string>();
    const out: string[] = [];
    let completed = false;
    source
      .pipe(deltaFifo({ process: (p) => (p.key === 'a' ? gate : [p.key]) }))
      .subscribe({ next: (x) => out.push(x), complete: () => (completed = true) });
    source.next(add(obj('a', 1)));
    source.next(add(obj('b', 1)));
    source.complete();
    expect(completed).toBe(false);
    gate.next('a');
    gate.complete();
    expect(out).toEqual(['a', 'b']);
    expect(completed).toBe(true);
  });
});

describe('DF-12 HasSynced', () => {
  const cases: Array<{ name: string; ops: FifoInput[]; pops: number; expected: boolean[] }> = [
    { name: 'fresh queue → false', ops: [], pops: 0, expected: [false] },
    { name: 'add first → true at once', ops: [add(obj('a', 1))], pops: 0, expected: [true] },
    { name: 'ignored delete first → true', ops: [del(obj('a', 1))], pops: 0, expected: [true] },
    { name: 'empty replace first → true', ops: [replace()], pops: 0, expected: [true] },
    { name: 'replace [a,b] → true after two pops', ops: [replace(obj('a', 1), obj('b', 1))], pops: 2, expected: [false, false, true] },
    { name: 'duplicate keys count once', ops: [replace(obj('a', 1), obj('a', 2))], pops: 1, expected: [false, true] },
    { name: 'add then replace → true from the add', ops: [add(obj('a', 1)), replace(obj('a', 1), obj('b', 1))], pops: 0, expected: [true] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { q } = queue();
      for (const op of c.ops) q.apply(op);
      const seen = [q.hasSynced];
      for (let i = 0; i < c.pops; i++) {
        q.processed(q.pop() as PoppedDeltas);
        seen.push(q.hasSynced);
      }
      expect(seen).toEqual(c.expected);
    });
  }
  it('deletions generated by the first replace count toward the initial batch', () => {
    const { q } = queue({ knownObjects: known(obj('gone', 1)) });
    q.apply(replace(obj('a', 1)));
    const first = q.pop() as PoppedDeltas;
    q.processed(first);
    expect(q.hasSynced).toBe(false);
    const second = q.pop() as PoppedDeltas;
    expect(second.isInInitialList).toBe(true);
    q.processed(second);
    expect(q.hasSynced).toBe(true);
  });
  it('the operator signals synced only after the last initial item was processed', () => {
    const source = new Subject<FifoInput>();
    const gates = new Map<string, Subject<string>>();
    const log: string[] = [];
    source
      .pipe(
        deltaFifo({
          onSynced: () => log.push('synced'),
          process: (p) => {
            const g = new Subject<string>();
            gates.set(p.key, g);
            return g;
          },
        }),
      )
      .subscribe((x) => log.push(x));
    source.next(replace(obj('a', 1), obj('b', 1)));
    source.next(add(obj('c', 1))); // arrives while a is in flight: must not flip synced
    gates.get('a')?.complete();
    expect(log).toEqual([]);
    const b = gates.get('b') as Subject<string>;
    b.next('b done');
    expect(log).toEqual(['b done']);
    b.complete();
    expect(log).toEqual(['b done', 'synced']);
  });
});

describe('DF-14 Debug accessors', () => {
  it('listKeys returns queue order and getDeltas a copy', () => {
    const { q } = queue();
    q.apply(add(obj('b', 1)));
    q.apply(add(obj('a', 1)));
    expect(q.listKeys()).toEqual(['b', 'a']);
    const copy = q.getDeltas('b');
    copy?.push({ type: 'Sync', object: obj('b', 9) });
    expect(q.getDeltas('b')?.map(show)).toEqual(['Added b=1']);
    expect(q.getDeltas('zzz')).toBeUndefined();
  });
});
