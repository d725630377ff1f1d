import type { KubeObject } from '../../src/api/kube-object.js';
import { type CacheError, type Delta, DeletedFinalStateUnknown } from '../../src/cache/index.js';
import { DeltaQueue, type DeltaQueueOptions } from '../../src/cache/delta-queue.js';
import { type KnownObjects } from '../../src/cache/store.js';

/** A cluster-scoped test object whose key is its name; `val` goes into resourceVersion (like client-go's mkFifoObj). */
export const obj = (name: string, val: number | string): KubeObject => ({ metadata: { name, resourceVersion: String(val) } });

export const valOf = (o: KubeObject | DeletedFinalStateUnknown | null): string =>
  o === null ? 'null' : o instanceof DeletedFinalStateUnknown ? `DFSU(${o.key},${valOf(o.object)})` : `${o.metadata?.name}=${o.metadata?.resourceVersion}`;

/** `"Added foo=10"` style rendering of a delta. */
export const show = (d: Delta): string => `${d.type} ${valOf(d.object)}`;

/** A KnownObjects backed by a Map, keyed by name. */
export function known(...objects: KubeObject[]): KnownObjects & { map: Map<string, KubeObject> } {
  const map = new Map(objects.map((o) => [o.metadata?.name as string, o]));
  return { map, listKeys: () => map.keys(), get: (k) => map.get(k) };
}

/** A DeltaQueue with an error collector. */
export function queue(options: DeltaQueueOptions<KubeObject> = {}): { q: DeltaQueue; errors: CacheError[] } {
  const errors: CacheError[] = [];
  const q = new DeltaQueue({ onError: (e) => errors.push(e), ...options });
  return { q, errors };
}

/** Pops everything, marking each item processed; returns `key: [deltas]` renderings. */
export function popAll(q: DeltaQueue): string[] {
  const out: string[] = [];
  for (let p = q.pop(); p !== undefined; p = q.pop()) {
    out.push(`${p.key}: ${p.deltas.map(show).join(', ')}`);
    q.processed(p);
  }
  return out;
}
