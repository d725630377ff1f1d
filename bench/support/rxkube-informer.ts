/**
 * rxkube's side of the informer benchmarks: one pods `sharedInformer` over HTTP (`KubeClient`),
 * one subscriber whose handler counts deliveries. `variant` 'default' uses the informer's default
 * options (transform drops managedFields, deep freeze, pipelined pages of 500); 'no-transform'
 * keeps objects whole; 'sequential' fetches pages one after another (`pagesInFlight: 1`);
 * 'unpaged' asks for one page holding everything (as kube-apiserver answers a list at
 * resourceVersion 0 from its watch cache), parsed at its end; 'unpaged-items' the same, each
 * item parsed as soon as it has arrived; 'metadata' lists and watches PartialObjectMetadata (the
 * default transform on top); 'fetch' is 'default' over the `fetch` transport (`fetchClient`, the
 * browser's) instead of node:http. 'streaming' starts with a streaming list (`sendInitialEvents`,
 * the reflector's default; the benchmark server emulates Kubernetes 1.34, which serves it);
 * 'paged' (the default `listParse: 'auto'`), 'at-end' (`listParse: 'atEnd'`), 'paged-items'
 * (`listParse: 'items'`) and the page variants above ('sequential', 'per-page', 'unpaged',
 * 'unpaged-items', 'fetch') set `streamingList: false`: a paged list, then a watch.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { KubeClient } from '../../src/client/kube-client.js';
import { fetchClient } from '../../src/client/fetch-client.js';
import { HttpListWatcher } from '../../src/client/http-list-watcher.js';
import type { ListWatchOptions } from '../../src/reflector/list-watch-options.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';

export type InformerVariant = 'default' | 'no-transform' | 'sequential' | 'per-page' | 'unpaged' | 'unpaged-items' | 'metadata' | 'fetch' | 'streaming' | 'paged' | 'paged-items' | 'at-end';

/** Variants about how list pages are fetched or parsed: they list and watch even where the server serves streaming lists. */
const LISTING: ReadonlySet<InformerVariant> = new Set(['sequential', 'per-page', 'unpaged', 'unpaged-items', 'fetch', 'paged', 'paged-items', 'at-end']);

/** A page size larger than any list of the benchmarks: one page. */
const ONE_PAGE = 10_000_000;

export interface BenchInformer {
  /** Subscribes `onEvent`, resolves when the informer has synced. */
  start(onEvent: () => void): Promise<void>;
  size(): number;
  stop(): Promise<void>;
}

export function rxkubeInformer(kc: KubeConfig, variant: InformerVariant): BenchInformer {
  const client = variant === 'fetch' ? fetchClient({ server: kc.getCurrentCluster()!.server }) : KubeClient.fromKubeConfig(kc);
  const resource = { apiVersion: 'v1', kind: 'Pod' } as const;
  const listWatch: ListWatchOptions = {
    ...(LISTING.has(variant) ? { streamingList: false } : variant === 'streaming' ? { streamingList: true } : {}),
    ...(variant === 'sequential' ? { pagesInFlight: 1 } : {}),
    ...(variant === 'per-page' ? { listParse: 'perPage' as const } : {}),
    ...(variant === 'paged-items' ? { listParse: 'items' as const } : {}),
    ...(variant === 'at-end' ? { listParse: 'atEnd' as const } : {}),
    ...(variant === 'unpaged' || variant === 'unpaged-items' ? { pageSize: ONE_PAGE } : {}),
  };
  const source =
    variant === 'unpaged-items'
      ? { listWatcher: new HttpListWatcher(client.connection, client.discovery, resource, {}, 'items'), listWatch }
      : variant === 'metadata'
        ? { listWatcher: client.listWatcher({ ...resource, plural: 'pods', namespaced: true }, { metadataOnly: true }), listWatch }
        : { client, resource, listWatch };
  const informer = sharedInformer(source, { name: 'pods', ...(variant === 'no-transform' ? { transform: null } : {}) });
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
