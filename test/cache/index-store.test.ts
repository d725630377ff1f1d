import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { type CacheError, DeletedFinalStateUnknown, IndexFuncError, type PoppedDeltas } from '../../src/cache/index.js';
import { Indexer } from '../../src/cache/indexer.js';
import { InvalidInputError } from '../../src/cache/errors.js';
import { type StoreChange } from '../../src/cache/apply-deltas.js';
import { indexStore } from '../../src/cache/index-store.js';
import { marbles } from '../helpers/marbles.js';

const pod = (name: string, rv: string, node = 'n1'): UnstructuredObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
  spec: { nodeName: node },
});
const byNode = (o: KubeObject) => [String(((o as UnstructuredObject).spec as { nodeName?: string } | undefined)?.nodeName ?? '')];
const rv = (o: KubeObject | DeletedFinalStateUnknown | undefined) =>
  o === undefined ? '-' : o instanceof DeletedFinalStateUnknown ? `DFSU` : (o.metadata?.resourceVersion ?? '?');
const render = (c: StoreChange) => `${c.delta.type} ${c.key} ${rv(c.old)}->${rv(c.delta.object)} size=${c.store.size}`;

describe('indexStore', () => {
  it(
    'applies each delta and emits {delta, old, store} per delta, synchronously',
    marbles((m) => {
      const indexer = new Indexer({ indexers: { node: byNode } });
      const batches: Record<string, PoppedDeltas> = {
        p: {
          key: 'ns/a',
          isInInitialList: true,
          deltas: [
            { type: 'Added', object: pod('a', '1') },
            { type: 'Updated', object: pod('a', '2', 'n2') },
          ],
        },
        q: { key: 'ns/b', isInInitialList: false, deltas: [{ type: 'Replaced', object: pod('b', '1') }] },
        r: { key: 'ns/a', isInInitialList: false, deltas: [{ type: 'Deleted', object: new DeletedFinalStateUnknown('ns/a', null) }] },
      };
      const source = m.cold('-p----q-r-|', batches);
      m.expect(source.pipe(indexStore(indexer), map(render))).toBeObservable('-(xy)-z-w-|', {
        x: 'Added ns/a -->1 size=1',
        y: 'Updated ns/a 1->2 size=1',
        z: 'Replaced ns/b -->1 size=2',
        w: 'Deleted ns/a 2->DFSU size=1',
      });
      m.flush();
      expect(indexer.listKeys()).toEqual(['ns/b']);
      expect(indexer.indexValues('node')).toEqual(['n1']);
    }),
  );

  it(
    'reports a failing write, skips the rest of that batch and keeps going',
    marbles((m) => {
      const errors: CacheError[] = [];
      const indexer = new Indexer({
        indexers: {
          strict: (o) => {
            if (o.metadata?.resourceVersion === 'bad') throw new Error('no');
            return ['ok'];
          },
        },
      });
      const batches: Record<string, PoppedDeltas> = {
        p: {
          key: 'ns/a',
          isInInitialList: false,
          deltas: [
            { type: 'Added', object: pod('a', '1') },
            { type: 'Updated', object: pod('a', 'bad') },
            { type: 'Updated', object: pod('a', '3') },
          ],
        },
        q: {
          key: 'ns/b',
          isInInitialList: false,
          deltas: [
            { type: 'Exploded' as 'Added', object: pod('b', '1') },
            { type: 'Added', object: pod('b', '2') },
          ],
        },
      };
      const source = m.cold('-p-q-|', batches);
      m.expect(source.pipe(indexStore(indexer, { onError: (e) => errors.push(e) }), map(render))).toBeObservable(
        '-x-y-|',
        { x: 'Added ns/a -->1 size=1', y: 'Added ns/b -->2 size=2' },
      );
      m.flush();
      expect(errors.map((e) => e.constructor)).toEqual([IndexFuncError, InvalidInputError]);
      expect(errors[0]?.message).toMatch(/ns\/a/);
      expect(errors[1]?.message).toMatch(/unknown delta type "Exploded"/);
      expect(indexer.get('ns/a')?.metadata?.resourceVersion).toBe('1');
    }),
  );

  it(
    'forwards completion and errors',
    marbles((m) => {
      const indexer = new Indexer();
      m.expect(m.cold<PoppedDeltas>('--#').pipe(indexStore(indexer))).toBeObservable('--#');
      m.expect(m.cold<PoppedDeltas>('--|').pipe(indexStore(indexer))).toBeObservable('--|');
    }),
  );
});
