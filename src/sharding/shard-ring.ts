import { splitApiVersion } from '../api/resource.js';

/**
 * Labels of controller sharding (the protocol of the kubernetes-controller-sharding project,
 * under rxkube's own names). For a controller ring `ring`:
 * - every shard holds a Lease labelled `rxkube.io/controller-ring: <ring>`, named after the shard
 *   and held by it (`holderIdentity` = the Lease's name);
 * - the sharder writes `shard.rxkube.io/<ring>: <shard>` on every object of the ring (the
 *   controller's `for` type, and owned objects: their controller owner's shard);
 * - to move an object away from a live shard the sharder sets `drain.rxkube.io/<ring>: "true"`;
 *   the shard acknowledges by removing both labels (and no longer reconciles the object), then the
 *   sharder assigns it to its new shard.
 */
export const CONTROLLER_RING_LABEL = 'rxkube.io/controller-ring';

/** The shard label of `ring`. */
export function shardLabel(ring: string): string {
  return `shard.rxkube.io/${ring}`;
}

/** The drain label of `ring`. */
export function drainLabel(ring: string): string {
  return `drain.rxkube.io/${ring}`;
}

/** 32-bit FNV-1a of a string's UTF-16 code units (stable across processes and versions). */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3's fmix32): spreads nearby keys over the ring.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A consistent hashing ring over shard names, each with `virtualNodes` points, so that adding or
 * removing one shard moves only about 1/N of the keys and a small ring is still balanced.
 */
export class HashRing {
  private readonly points: number[] = [];
  private readonly owners: string[] = [];

  constructor(
    shards: Iterable<string>,
    readonly virtualNodes = 100,
  ) {
    const entries: Array<[number, string]> = [];
    for (const shard of new Set(shards)) {
      for (let v = 0; v < virtualNodes; v++) entries.push([fnv1a32(`${shard}#${v}`), shard]);
    }
    // Ties (two points hashing alike) are broken by name, so every process builds the same ring.
    entries.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    for (const [p, s] of entries) {
      this.points.push(p);
      this.owners.push(s);
    }
  }

  /** Number of points on the ring (shards × virtual nodes). */
  get size(): number {
    return this.points.length;
  }

  /** The shard owning `key` (the first point at or after its hash, wrapping); `undefined` for an empty ring. */
  shardFor(key: string): string | undefined {
    if (this.points.length === 0) return undefined;
    const h = fnv1a32(key);
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.points[mid] as number) < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === this.points.length ? 0 : lo];
  }
}

/**
 * The hash key of an object of the ring: API group, kind, namespace and name. For an owned object,
 * pass its controller owner's `apiVersion`, `kind` and `name` (and the object's namespace), so
 * owned objects hash like their owner. (The type comes from the resource, not the object: a
 * metadata-only cache holds `PartialObjectMetadata`.)
 */
export function shardKey(type: { readonly apiVersion: string; readonly kind: string }, namespace: string | undefined, name: string): string {
  return `${splitApiVersion(type.apiVersion).group}/${type.kind}/${namespace ?? ''}/${name}`;
}
