import type { KubeObject } from '../api/kube-object.js';

/**
 * The informer's transform split in two, so that a large list never holds every untransformed
 * object at once: `list` runs as each list page is parsed (the reflector's `listItemTransform`),
 * so the parts a transform drops (the default drops `managedFields`, about half of a parsed
 * object) can be collected page by page instead of after the whole list was queued; `queue` is
 * the DeltaFIFO's transform (DF-7) and lets what `list` produced through as it is — every object
 * is still transformed exactly once before it is stored.
 *
 * An object `list` produced is remembered (weakly) until `queue` sees it. When the transform
 * throws at list time, the item is passed on untransformed and `queue` runs the transform again,
 * so the failure is reported and the item skipped as before (`TransformError` on the informer's
 * errors).
 */
export function listTimeTransform<T extends KubeObject>(transform: (object: T) => T): { readonly list: (object: T) => T; readonly queue: (object: T) => T } {
  const transformed = new WeakSet<object>();
  return {
    list: (object) => {
      let result: T;
      try {
        result = transform(object);
      } catch {
        return object;
      }
      if (typeof result === 'object' && result !== null) transformed.add(result);
      return result;
    },
    queue: (object) => (typeof object === 'object' && object !== null && transformed.delete(object) ? object : transform(object)),
  };
}
