/**
 * rxkube's side of the informer benchmarks: one pods `sharedInformer` over HTTP (`KubeClient`),
 * one subscriber whose handler counts deliveries. `variant` 'default' uses the informer's default
 * options (transform drops managedFields, deep freeze); 'no-transform' keeps objects whole;
 * 'metadata' lists and watches PartialObjectMetadata (the default transform on top).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { KubeClient } from '../../src/client/index.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';

export type InformerVariant = 'default' | 'no-transform' | 'metadata';

export interface BenchInformer {
  /** Subscribes `onEvent`, resolves when the informer has synced. */
  start(onEvent: () => void): Promise<void>;
  size(): number;
  stop(): Promise<void>;
}

export function rxkubeInformer(kc: KubeConfig, variant: InformerVariant): BenchInformer {
  const client = KubeClient.fromKubeConfig(kc);
  const informer = sharedInformer(
    variant === 'metadata'
      ? { listWatcher: client.listWatcher({ apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true }, { metadataOnly: true }) }
      : { client, resource: { apiVersion: 'v1', kind: 'Pod' } },
    { name: 'pods', ...(variant === 'no-transform' ? { transform: null } : {}) },
  );
  let sub: Subscription | undefined;
  return {
    async start(onEvent) {
      sub = informer.events$.subscribe({ next: () => onEvent() });
      await informer.waitForSync();
    },
    size: () => informer.store.size,
    async stop() {
      sub?.unsubscribe();
      client.close();
    },
  };
}
