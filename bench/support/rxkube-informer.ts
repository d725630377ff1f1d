/**
 * rxkube's side of the informer benchmarks: one pods informer over HTTP with a no-op handler that
 * counts deliveries. `variant` 'default' uses the default transform (drops managedFields);
 * 'no-transform' keeps objects whole.
 *
 * Stand-in until the shared informer lands: reflector (`listWatch`) → `deltaFifo` → `Indexer`
 * (`applyDeltas`) → informer events, the chain the shared informer is built from.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import type { KubeObject } from '../../src/api/kube-object.js';
import { applyDeltas, Indexer, toInformerEvent } from '../../src/cache/index.js';
import { KubeClient } from '../../src/client/index.js';
import { dropManagedFields } from '../../src/informer/drop-managed-fields.js';
import { listWatch } from '../../src/reflector/index.js';
import { deltaFifo } from '../../operators/delta-fifo.js';

export type InformerVariant = 'default' | 'no-transform';

export interface BenchInformer {
  start(onEvent: () => void): Promise<void>;
  size(): number;
  stop(): Promise<void>;
}

export function rxkubeInformer(kc: KubeConfig, variant: InformerVariant): BenchInformer {
  const client = KubeClient.fromKubeConfig(kc);
  const indexer = new Indexer<KubeObject>();
  let sub: Subscription | undefined;
  return {
    start(onEvent) {
      return new Promise<void>((resolve, reject) => {
        sub = listWatch(client.listWatcher({ apiVersion: 'v1', kind: 'Pod' }))
          .pipe(
            deltaFifo({
              knownObjects: indexer,
              emitDeltaTypeReplaced: true,
              ...(variant === 'default' ? { transform: dropManagedFields } : {}),
              onSynced: () => resolve(),
              process: (popped) => applyDeltas(indexer, popped).map(toInformerEvent),
            }),
          )
          .subscribe({ next: () => onEvent(), error: reject });
      });
    },
    size: () => indexer.size,
    async stop() {
      sub?.unsubscribe();
      client.close();
    },
  };
}
