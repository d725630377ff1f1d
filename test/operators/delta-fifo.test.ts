import { delay, of } from 'rxjs';
import { describe, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { type FifoOp, type PoppedDeltas } from '../../src/cache/index.js';
import { deltaFifo } from '../../operators/delta-fifo.js';
import { marbles } from '../helpers/marbles.js';

const pod = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
const summary = (p: PoppedDeltas) => `${p.key}:${p.deltas.map((d) => `${d.type}@${(d.object as KubeObject).metadata?.resourceVersion}`).join(',')}`;

describe('deltaFifo', () => {
  it(
    'coalesces deltas for a waiting key while the consumer is busy (virtual time)',
    marbles((m) => {
      const ops: Record<string, FifoOp> = {
        a: { type: 'add', object: pod('a', '1') },
        b: { type: 'update', object: pod('a', '2') },
        c: { type: 'add', object: pod('b', '1') },
        d: { type: 'update', object: pod('a', '3') },
      };
      const source = m.hot('-abcd-------------|', ops);
      const busy = m.time('-----|');
      const out = source.pipe(
        deltaFifo({ process: (p) => of(summary(p)).pipe(delay(busy)) }),
      );
      m.expect(out).toBeObservable('------x----y----z-|', {
        x: 'ns/a:Added@1',
        y: 'ns/a:Updated@2,Updated@3',
        z: 'ns/b:Added@1',
      });
    }),
  );
});
