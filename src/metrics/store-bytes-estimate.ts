import type { Store } from '../cache/store.js';

/** How many cached objects {@link approximateStoreBytes} serializes per call, at most. */
export const STORE_BYTES_SAMPLE = 32;

/**
 * An estimate of the bytes a cache holds: the mean UTF-8 JSON size of up to
 * {@link STORE_BYTES_SAMPLE} cached objects spread evenly over the cache, times the number of
 * objects. Costs one key listing and at most 32 `JSON.stringify` per call, whatever the cache's
 * size. It estimates the cache's serialized size, not heap bytes (a parsed, frozen object and its
 * index entries take several times its JSON): use it to compare informers and to watch one grow.
 */
export function approximateStoreBytes(store: Pick<Store<object>, 'size' | 'listKeys' | 'get'>): number {
  const count = store.size;
  if (count === 0) return 0;
  const keys = store.listKeys();
  const samples = Math.min(STORE_BYTES_SAMPLE, keys.length);
  let bytes = 0;
  let measured = 0;
  for (let i = 0; i < samples; i++) {
    const key = keys[Math.floor((i * keys.length) / samples)];
    const object = key === undefined ? undefined : store.get(key);
    if (object === undefined) continue;
    bytes += jsonBytes(object);
    measured++;
  }
  return measured === 0 ? 0 : Math.round((bytes / measured) * count);
}

function jsonBytes(object: object): number {
  try {
    return Buffer.byteLength(JSON.stringify(object) ?? '', 'utf8');
  } catch {
    return 0; // a cycle or a BigInt: not a Kubernetes object; counted as nothing
  }
}
