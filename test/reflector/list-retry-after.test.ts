/** The reflector's list path honours the server's Retry-After (a 429 on a list), in virtual time. */
import { describe, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListPage, ListWatcher, WatchEvent } from '../../src/api/list-watcher.js';
import { ApiError } from '../../src/client/api-error.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { marbles } from '../helpers/marbles.js';
import { page } from './fake-list-watcher.js';

function sequenced(lists: Array<import('rxjs').Observable<ListPage>>, watches: Array<import('rxjs').Observable<WatchEvent>>): ListWatcher<KubeObject> {
  let l = 0;
  let w = 0;
  return { list: () => lists[l++]!, watch: () => watches[w++]! };
}

const throttled = (seconds: number | undefined): ApiError =>
  new ApiError({ kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down' }, seconds === undefined ? { code: 429 } : { code: 429, retryAfterSeconds: seconds });

describe('reflector list and Retry-After', () => {
  it(
    'a 429 with Retry-After: 5 on the list relists after 5 s, not after its own backoff',
    marbles((m) => {
      const lw = sequenced([m.cold<ListPage>('#', undefined, throttled(5)), m.cold('(p|)', { p: page([], '7') })], [m.cold('-')]);
      const values: Record<string, ReflectorEvent> = { r: { type: 'replace', items: [], resourceVersion: '7' } };
      m.expect(listWatch(lw, { scheduler: m.scheduler, random: () => 0 }), '^ 6s !').toBeObservable('5s r', values);
    }),
  );

  it(
    'without Retry-After the server-error backoff decides (250 ms)',
    marbles((m) => {
      const lw = sequenced([m.cold<ListPage>('#', undefined, throttled(undefined)), m.cold('(p|)', { p: page([], '7') })], [m.cold('-')]);
      const values: Record<string, ReflectorEvent> = { r: { type: 'replace', items: [], resourceVersion: '7' } };
      m.expect(listWatch(lw, { scheduler: m.scheduler, random: () => 0 }), '^ 2s !').toBeObservable('250ms r', values);
    }),
  );
  it(
    'Retry-After replaces a backoff grown through earlier 429s (a restarting server says when it is ready)',
    marbles((m) => {
      const fail = (seconds: number | undefined) => m.cold<ListPage>('#', undefined, throttled(seconds));
      // five 429s without Retry-After grow the backoff to its 4 s cap: 250 + 500 + 1000 + 2000 + 4000 ms;
      // the sixth says Retry-After: 1, and the relist comes 1 s later, not after another 4 s.
      const lw = sequenced([fail(undefined), fail(undefined), fail(undefined), fail(undefined), fail(undefined), fail(1), m.cold('(p|)', { p: page([], '7') })], [m.cold('-')]);
      const values: Record<string, ReflectorEvent> = { r: { type: 'replace', items: [], resourceVersion: '7' } };
      m.expect(listWatch(lw, { scheduler: m.scheduler, random: () => 0 }), '^ 12s !').toBeObservable('8750ms r', values);
    }),
  );
});
