import { describe, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ListPage, ListWatcher, WatchEvent } from '../../src/api/list-watcher.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { marbles } from '../helpers/marbles.js';
import { added, gone, modified, obj, page } from './fake-list-watcher.js';

const a1 = obj('a', '2');
const a2 = obj('a', '3');

/** A ListWatcher whose n-th list / watch call returns the n-th given Observable. */
function sequenced(lists: Array<import('rxjs').Observable<ListPage>>, watches: Array<import('rxjs').Observable<WatchEvent>>): ListWatcher<KubeObject> {
  let l = 0;
  let w = 0;
  return {
    list: () => lists[l++]!,
    watch: () => watches[w++]!,
  };
}

describe('listWatch in marbles', () => {
  it(
    'list → replace, watch events, a normal close re-watches at once',
    marbles((m) => {
      const lw = sequenced(
        [m.cold('--(p|)', { p: page([], '1') })],
        [m.cold('-a 1s -|', { a: added(a1) }), m.cold('--m', { m: modified(a2) })],
      );
      const values: Record<string, ReflectorEvent> = {
        r: { type: 'replace', items: [], resourceVersion: '1' },
        a: { type: 'added', object: a1 },
        m: { type: 'modified', object: a2 },
      };
      m.expect(listWatch(lw, { scheduler: m.scheduler, random: () => 0 }), '^ 2s !').toBeObservable('--ra 1s ---m', values);
    }),
  );

  it(
    'a 410 during a healthy watch relists at once; a second 410 before any event backs off',
    marbles((m) => {
      const lw = sequenced(
        [m.cold('(p|)', { p: page([obj('x', '1')], '1') }), m.cold('-(p|)', { p: page([a1], '2') }), m.cold('-(p|)', { p: page([a2], '3') })],
        [m.cold('-#', undefined, gone()), m.cold('-#', undefined, gone()), m.cold('-')],
      );
      const values: Record<string, ReflectorEvent> = {
        r: { type: 'replace', items: [obj('x', '1')], resourceVersion: '1' },
        s: { type: 'replace', items: [a1], resourceVersion: '2' },
        t: { type: 'replace', items: [a2], resourceVersion: '3' },
      };
      // list at 0, watch error at 1ms, relist at once answers at 2ms; the next watch fails at 3ms
      // without an event in between: the relist waits for the general backoff (its second step, 1600ms)
      m.expect(listWatch(lw, { scheduler: m.scheduler, random: () => 0 }), '^ 3s !').toBeObservable('r-s 1601ms t', values);
    }),
  );

  it(
    'the backoff doubles across consecutive list failures',
    marbles((m) => {
      const fail = () => m.cold<ListPage>('#', undefined, new Error('down'));
      const lw = sequenced([fail(), fail(), m.cold('(p|)', { p: page([], '9') })], [m.cold('-')]);
      const values: Record<string, ReflectorEvent> = { r: { type: 'replace', items: [], resourceVersion: '9' } };
      m.expect(listWatch(lw, { scheduler: m.scheduler, random: () => 0 }), '^ 5s !').toBeObservable('2400ms r', values);
    }),
  );
});
