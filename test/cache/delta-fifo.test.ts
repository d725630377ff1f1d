import fc from 'fast-check';
import { concat, delay, ignoreElements, map, merge, of, Subject, timer, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { type CacheError, KeyError, type PoppedDeltas } from '../../src/cache/index.js';
import { type FifoInput } from '../../src/cache/fifo-op.js';
import { Indexer } from '../../src/cache/indexer.js';
import { InvalidInputError } from '../../src/cache/errors.js';
import { deltaFifo } from '../../src/cache/delta-fifo.js';
import { indexStore } from '../../src/cache/index-store.js';
import { marbles } from '../helpers/marbles.js';

const pod = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const summary = (p: PoppedDeltas) =>
  `${p.key}:${p.deltas.map((d) => `${d.type}@${(d.object as KubeObject).metadata?.resourceVersion}`).join(',')}`;
const ops: Record<string, FifoInput> = {
  a: { type: 'add', object: pod('a', '1') },
  b: { type: 'update', object: pod('a', '2') },
  c: { type: 'add', object: pod('b', '1') },
  d: { type: 'update', object: pod('a', '3') },
  r: { type: 'replace', items: [pod('a', '1'), pod('b', '1')], resourceVersion: '1' },
  s: { type: 'resync' },
  n: { type: 'add', object: pod('c', '1') },
};

describe('deltaFifo', () => {
  it(
    'coalesces deltas for a waiting key while the consumer is busy (virtual time)',
    marbles((m) => {
      const source = m.hot('-abcd-------------|', ops);
      const busy = m.time('-----|');
      const out = source.pipe(deltaFifo({ process: (p) => of(summary(p)).pipe(delay(busy)) }));
      m.expect(out).toBeObservable('------x----y----z-|', {
        x: 'ns/a:Added@1',
        y: 'ns/a:Updated@2,Updated@3',
        z: 'ns/b:Added@1',
      });
    }),
  );

  it(
    'without a process step emits each key as soon as it is queued',
    marbles((m) => {
      const source = m.hot('-a-b-c-|', ops);
      m.expect(source.pipe(deltaFifo(), map(summary))).toBeObservable('-a-b-c-|', {
        a: 'ns/a:Added@1',
        b: 'ns/a:Updated@2',
        c: 'ns/b:Added@1',
      });
    }),
  );

  it(
    'a slow consumer sees at most one batch per key however many events arrive',
    marbles((m) => {
      const source = m.hot('-abdbdbdbdc---------------|', ops);
      const busy = m.time('----------|');
      const out = source.pipe(deltaFifo({ process: (p) => of(p.deltas.length).pipe(delay(busy)) }));
      // a: 1 delta popped at once; then a's slot gathers 8 updates; b one add
      m.expect(out).toBeObservable('-----------x---------y---------(z|)', { x: 1, y: 8, z: 1 });
    }),
  );

  it(
    'signals synced after the last initial item was processed, in virtual time',
    marbles((m) => {
      const synced: number[] = [];
      const source = m.hot('-r-n---------|', ops);
      const busy = m.time('---|');
      const out = source.pipe(
        deltaFifo({
          onSynced: () => synced.push(m.scheduler.now()),
          process: (p) => of(`${p.key}${p.isInInitialList ? '*' : ''}`).pipe(delay(busy)),
        }),
      );
      m.expect(out).toBeObservable('----a--b--c--|', { a: 'ns/a*', b: 'ns/b*', c: 'ns/c' });
      m.flush();
      expect(synced).toEqual([7]);
    }),
  );

  it(
    'resync while busy skips keys that have pending deltas',
    marbles((m) => {
      const indexer = new Indexer();
      indexer.add(pod('a', '1'));
      indexer.add(pod('b', '1'));
      // c (add b) is popped at once; b (update a) waits; the resync skips a (pending) but
      // re-queues b, which is in flight, not pending
      const source = m.hot('-c-bs-------|', ops);
      const busy = m.time('----|');
      const out = source.pipe(
        deltaFifo({ knownObjects: indexer, process: (p) => of(summary(p)).pipe(delay(busy)) }),
      );
      m.expect(out).toBeObservable('-----x---y---(z|)', { x: 'ns/b:Added@1', y: 'ns/a:Updated@2', z: 'ns/b:Sync@1' });
    }),
  );

  it(
    'completes only after the busy step and the waiting keys are done',
    marbles((m) => {
      const source = m.hot('-ac|', ops);
      const busy = m.time('--|');
      const out = source.pipe(deltaFifo({ process: (p) => of(p.key).pipe(delay(busy)) }));
      m.expect(out).toBeObservable('---a-(b|)', { a: 'ns/a', b: 'ns/b' });
    }),
  );

  it(
    'forwards a source error at once and unsubscribes the busy step',
    marbles((m) => {
      const source = m.hot('-a--#', ops);
      const step = m.cold('------x|');
      const out = source.pipe(deltaFifo({ process: () => step }));
      m.expect(out).toBeObservable('----#');
      m.expect(step).toHaveSubscriptions('-^--!');
    }),
  );

  it(
    'unsubscribing stops the source and the busy step',
    marbles((m) => {
      const source = m.hot('-a-----', ops);
      const step = m.cold('------x|');
      const out = source.pipe(deltaFifo({ process: () => step }));
      m.expect(out, '^--!').toBeObservable('----');
      m.expect(step).toHaveSubscriptions('-^-!');
      m.expect(source).toHaveSubscriptions('^--!');
    }),
  );

  it(
    'an error from the process step errors the output',
    marbles((m) => {
      const source = m.hot('-a-c-|', ops);
      const out = source.pipe(
        deltaFifo({
          process: (p): string[] => {
            if (p.key === 'ns/b') throw new Error('step failed');
            return [p.key];
          },
        }),
      );
      m.expect(out).toBeObservable('-a-#', { a: 'ns/a' }, new Error('step failed'));
    }),
  );

  it('accepts reflector events directly (bookmark ignored)', () => {
    const source = new Subject<ReflectorEvent>();
    const out: string[] = [];
    const indexer = new Indexer();
    indexer.add(pod('b', '0'));
    source.pipe(deltaFifo({ knownObjects: indexer }), map(summary)).subscribe((s) => out.push(s));
    source.next({ type: 'replace', items: [pod('a', '1'), pod('b', '0')], resourceVersion: '1' });
    source.next({ type: 'added', object: pod('b', '2') });
    source.next({ type: 'modified', object: pod('b', '3') });
    source.next({ type: 'bookmark', resourceVersion: '4' });
    source.next({ type: 'deleted', object: pod('b', '5') });
    expect(out).toEqual(['ns/a:Sync@1', 'ns/b:Sync@0', 'ns/b:Added@2', 'ns/b:Updated@3', 'ns/b:Deleted@5']);
  });

  it('reports bad input with a typed error naming the object and keeps its state', () => {
    const errors: CacheError[] = [];
    const source = new Subject<FifoInput>();
    const gate = new Subject<string>();
    const out: string[] = [];
    source
      .pipe(deltaFifo({ onError: (e) => errors.push(e), process: (p) => (p.key === 'ns/first' ? gate : [summary(p)]) }))
      .subscribe((s) => out.push(s));
    source.next({ type: 'add', object: pod('first', '1') }); // keeps the consumer busy
    source.next({ type: 'add', object: pod('a', '1') });
    source.next({ type: 'add', object: { kind: 'Pod', metadata: { namespace: 'ns' } } });
    source.next({ type: 'add', object: { kind: 'Pod' } });
    source.next({ type: 'explode' } as unknown as FifoInput);
    source.next({ type: 'update', object: pod('a', '2') });
    expect(errors.map((e) => e.constructor)).toEqual([KeyError, KeyError, InvalidInputError]);
    expect(errors[0]?.message).toMatch(/Pod ns\/<no name>.*no metadata\.name/);
    expect(errors[2]?.message).toMatch(/unknown deltaFifo operation.*explode/);
    gate.complete();
    expect(out).toEqual(['ns/a:Added@1,Updated@2']);
  });

  it('a synchronous step that feeds the source re-entrantly is queued, not interleaved', () => {
    const source = new Subject<FifoInput>();
    const seen: string[] = [];
    source
      .pipe(
        deltaFifo({
          process: (p) => {
            seen.push(`start ${summary(p)}`);
            if (p.key === 'ns/a') source.next({ type: 'add', object: pod('b', '1') });
            seen.push(`end ${p.key}`);
            return [];
          },
        }),
      )
      .subscribe();
    source.next({ type: 'add', object: pod('a', '1') });
    expect(seen).toEqual(['start ns/a:Added@1', 'end ns/a', 'start ns/b:Added@1', 'end ns/b']);
  });
});

describe('deltaFifo + indexStore (property)', () => {
  it('with a slow asynchronous consumer the cache ends equal to the last state of every key', () => {
    const names = ['a', 'b', 'c', 'd'];
    const opArb = fc.oneof(
      fc.record({ type: fc.constantFrom('add', 'update', 'delete'), name: fc.constantFrom(...names), at: fc.nat(20) }),
      fc.record({ type: fc.constant('replace'), keep: fc.subarray(names), at: fc.nat(20) }),
      fc.record({ type: fc.constant('resync'), at: fc.nat(20) }),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), fc.nat(6), (raw, busy) => {
        const ops = [...raw].sort((x, y) => x.at - y.at);
        const model = new Map<string, string>();
        const inputs: Array<[number, FifoInput]> = ops.map((op, i) => {
          const rv = String(i + 1);
          if (op.type === 'replace') {
            const items = (op as { keep: string[] }).keep.map((n) => pod(n, rv));
            model.clear();
            for (const n of (op as { keep: string[] }).keep) model.set(`ns/${n}`, rv);
            return [op.at, { type: 'replace', items, resourceVersion: rv }];
          }
          if (op.type === 'resync') return [op.at, { type: 'resync' }];
          const name = (op as { name: string }).name;
          if (op.type === 'delete') model.delete(`ns/${name}`);
          else model.set(`ns/${name}`, rv);
          return [op.at, { type: op.type as 'add' | 'update' | 'delete', object: pod(name, rv) }];
        });
        const scheduler = new VirtualTimeScheduler();
        const indexer = new Indexer();
        const source = merge(...inputs.map(([at, op]) => timer(at, scheduler).pipe(map(() => op))));
        source
          .pipe(
            deltaFifo({
              knownObjects: indexer,
              emitDeltaTypeReplaced: true,
              // write the cache at once, then stay busy for `busy` frames (ops keep arriving)
              process: (p) =>
                concat(of(p).pipe(indexStore(indexer), ignoreElements()), timer(busy, scheduler).pipe(ignoreElements())),
            }),
          )
          .subscribe();
        scheduler.flush();
        const actual = new Map(indexer.list().map((o) => [`ns/${o.metadata?.name}`, o.metadata?.resourceVersion]));
        expect(actual).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });
});
