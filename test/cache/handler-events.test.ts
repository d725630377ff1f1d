import { map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown, type PoppedDeltas } from '../../src/cache/index.js';
import { Indexer } from '../../src/cache/indexer.js';
import { type InformerEvent } from '../../src/cache/informer-event.js';
import { handlerEvents } from '../../src/cache/handler-events.js';
import { indexStore } from '../../src/cache/index-store.js';
import { marbles } from '../helpers/marbles.js';

const pod = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const v = (o: KubeObject | DeletedFinalStateUnknown) =>
  o instanceof DeletedFinalStateUnknown ? `DFSU(${o.key})` : `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
const render = (e: InformerEvent) =>
  e.type === 'add'
    ? `add ${v(e.object)} ${e.isInInitialList}`
    : e.type === 'update'
      ? `update ${v(e.old)}->${v(e.object)} resync=${e.resync}`
      : `delete ${v(e.object)}`;

describe('handlerEvents', () => {
  it(
    'maps applied deltas to add / update (with resync flag) / delete',
    marbles((m) => {
      const indexer = new Indexer();
      const batches: Record<string, PoppedDeltas> = {
        a: { key: 'ns/a', isInInitialList: true, deltas: [{ type: 'Replaced', object: pod('a', '1') }] },
        s: { key: 'ns/a', isInInitialList: false, deltas: [{ type: 'Sync', object: pod('a', '1') }] },
        u: { key: 'ns/a', isInInitialList: false, deltas: [{ type: 'Updated', object: pod('a', '2') }] },
        d: {
          key: 'ns/a',
          isInInitialList: false,
          deltas: [{ type: 'Deleted', object: new DeletedFinalStateUnknown('ns/a', pod('a', '2')) }],
        },
        n: { key: 'ns/b', isInInitialList: false, deltas: [{ type: 'Added', object: pod('b', '1') }] },
      };
      const source = m.cold('-a-s-u-d-n-|', batches);
      m.expect(source.pipe(indexStore(indexer), handlerEvents(), map(render))).toBeObservable('-a-s-u-d-n-|', {
        a: 'add a@1 true',
        s: 'update a@1->a@1 resync=true',
        u: 'update a@1->a@2 resync=false',
        d: 'delete DFSU(ns/a)',
        n: 'add b@1 false',
      });
    }),
  );
});

describe('handlerEvents: cached objects are frozen', () => {
  it('a handler that mutates the object it receives throws, and the cache is unchanged', () => {
    const indexer = new Indexer();
    const seen: InformerEvent[] = [];
    of<PoppedDeltas>({ key: 'ns/a', isInInitialList: true, deltas: [{ type: 'Added', object: pod('a', '1') }] })
      .pipe(indexStore(indexer), handlerEvents())
      .subscribe((e) => seen.push(e));
    const event = seen[0] as Extract<InformerEvent, { type: 'add' }>;
    expect(() => {
      (event.object.metadata as { name: string }).name = 'hijacked';
    }).toThrow(TypeError);
    expect(indexer.get('ns/a')?.metadata?.name).toBe('a');
  });
});
