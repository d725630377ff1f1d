import { describe, it } from 'vitest';
import { toRequests } from '../../src/controller/to-requests.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/index.js';
import { type InformerEvent } from '../../src/cache/informer-event.js';
import { LOW_PRIORITY } from '../../src/controller/event-requests.js';
import { marbles } from '../helpers/marbles.js';

const o = (name: string, rv = '1', namespace = 'ns'): KubeObject => ({
  metadata: { name, resourceVersion: rv, ...(namespace ? { namespace } : {}) },
});

describe('toRequests', () => {
  it(
    'matches the marble diagram in its doc comment',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        i: { type: 'add', object: o('a'), isInInitialList: true },
        u: { type: 'update', old: o('a'), object: o('a', '2'), resync: false },
        t: { type: 'delete', object: new DeletedFinalStateUnknown('ns/b', o('b')) },
      };
      m.expect(m.cold('--i--u--t--|', events).pipe(toRequests())).toBeObservable('--i--u--t--|', {
        i: { request: { namespace: 'ns', name: 'a' }, priority: LOW_PRIORITY },
        u: { request: { namespace: 'ns', name: 'a' } },
        t: { request: { namespace: 'ns', name: 'b' } },
      });
    }),
  );

  it(
    'resync updates are low priority, live adds are not; cluster-scoped objects have no namespace',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        r: { type: 'update', old: o('a'), object: o('a'), resync: true },
        a: { type: 'add', object: o('node-1', '1', ''), isInInitialList: false },
        n: { type: 'delete', object: new DeletedFinalStateUnknown('gone', null) },
      };
      m.expect(m.cold('-r-a-n|', events).pipe(toRequests())).toBeObservable('-r-a-n|', {
        r: { request: { namespace: 'ns', name: 'a' }, priority: LOW_PRIORITY },
        a: { request: { name: 'node-1' } },
        n: { request: { name: 'gone' } },
      });
    }),
  );

  it(
    'an object without a name yields nothing',
    marbles((m) => {
      const events: Record<string, InformerEvent> = { x: { type: 'add', object: { metadata: {} }, isInInitialList: false } };
      m.expect(m.cold('-x-|', events).pipe(toRequests())).toBeObservable('---|');
    }),
  );
});
