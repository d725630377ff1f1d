import { describe, expect, it } from 'vitest';
import { mapToRequests } from '../../src/controller/map-to-requests.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { LOW_PRIORITY } from '../../src/controller/event-requests.js';
import { marbles } from '../helpers/marbles.js';

const secret = (usedBy: string, rv = '1'): KubeObject => ({
  metadata: { namespace: 'ns', name: 's', resourceVersion: rv, labels: { 'used-by': usedBy } },
});
/** The config maps a secret names in its 'used-by' label. */
const usedBy = (o: KubeObject) => (o.metadata?.labels?.['used-by'] ?? '').split('.').filter(Boolean).map((n) => `ns/${n}`);

describe('mapToRequests', () => {
  it(
    'matches the marble diagram in its doc comment (updates map old and new)',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        a: { type: 'add', object: secret('a'), isInInitialList: false },
        u: { type: 'update', old: secret('a'), object: secret('b', '2'), resync: false },
      };
      m.expect(m.cold('--a--u---|', events).pipe(mapToRequests(usedBy))).toBeObservable('--a--(ab)|', {
        a: { request: { namespace: 'ns', name: 'a' } },
        b: { request: { namespace: 'ns', name: 'b' } },
      });
    }),
  );

  it(
    'deduplicates the requests of one event and lowers initial-list priority',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        i: { type: 'add', object: secret('x.x.y'), isInInitialList: true },
      };
      m.expect(m.cold('-i---|', events).pipe(mapToRequests(usedBy))).toBeObservable('-(xy)|', {
        x: { request: { namespace: 'ns', name: 'x' }, priority: LOW_PRIORITY },
        y: { request: { namespace: 'ns', name: 'y' }, priority: LOW_PRIORITY },
      });
    }),
  );

  it('rejects a non-function mapping', () => {
    expect(() => mapToRequests(undefined as never)).toThrow(TypeError);
  });
});
