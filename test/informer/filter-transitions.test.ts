import { describe, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { filterTransitions } from '../../src/informer/filter-transitions.js';
import { marbles } from '../helpers/marbles.js';

const r = (name: string): UnstructuredObject => ({ metadata: { name }, ready: true });
const n = (name: string): UnstructuredObject => ({ metadata: { name }, ready: false });
const isReady = (o: KubeObject) => (o as UnstructuredObject).ready === true;

describe('filterTransitions', () => {
  it(
    'passes matching adds/deletes and turns crossing updates into add/delete',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        a: { type: 'add', object: r('a'), isInInitialList: true },
        b: { type: 'add', object: n('b'), isInInitialList: true },
        c: { type: 'update', old: n('c'), object: r('c'), resync: false },
        d: { type: 'update', old: r('d'), object: n('d'), resync: false },
        e: { type: 'update', old: n('e'), object: n('e'), resync: false },
        f: { type: 'update', old: r('f'), object: r('f'), resync: true },
        g: { type: 'delete', object: n('g') },
      };
      const expected: Record<string, InformerEvent> = {
        a: events.a as InformerEvent,
        c: { type: 'add', object: r('c'), isInInitialList: false },
        d: { type: 'delete', object: r('d') },
        f: events.f as InformerEvent,
      };
      m.expect(m.cold('-a-b-c-d-e-f-g-|', events).pipe(filterTransitions(isReady))).toBeObservable(
        '-a---c-d---f---|',
        expected,
      );
    }),
  );

  it(
    'a throwing predicate errors the stream',
    marbles((m) => {
      const boom = new Error('bad predicate');
      const events: Record<string, InformerEvent> = { a: { type: 'add', object: r('a'), isInInitialList: false } };
      m.expect(
        m.cold('-a-a-|', events).pipe(
          filterTransitions(() => {
            throw boom;
          }),
        ),
      ).toBeObservable('-#', undefined, boom);
    }),
  );
});
