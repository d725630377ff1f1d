import { Subject } from 'rxjs';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';

/** A configmap-like object `ns/name` at resourceVersion `rv`. */
export const obj = (name: string, rv: string, labels?: Record<string, string>, ns = 'ns'): KubeObject => ({
  metadata: { name, namespace: ns, resourceVersion: rv, ...(labels === undefined ? {} : { labels }) },
});

const label = (o: KubeObject | DeletedFinalStateUnknown): string =>
  o instanceof DeletedFinalStateUnknown
    ? `~${o.key}`
    : `${o.metadata?.name ?? '?'}@${o.metadata?.resourceVersion ?? '?'}`;

/** `add x@1*` (initial), `add x@1`, `update x@1>x@2`, `resync x@2`, `delete x@3`, `delete ~ns/x` (tombstone). */
export function brief(e: InformerEvent): string {
  switch (e.type) {
    case 'add':
      return `add ${label(e.object)}${e.isInInitialList ? '*' : ''}`;
    case 'update':
      return e.resync ? `resync ${label(e.object)}` : `update ${label(e.old)}>${label(e.object)}`;
    case 'delete':
      return `delete ${label(e.object)}`;
  }
}

export const replace = (rv: string, ...items: KubeObject[]): ReflectorEvent => ({ type: 'replace', items, resourceVersion: rv });
export const added = (o: KubeObject): ReflectorEvent => ({ type: 'added', object: o });
export const modified = (o: KubeObject): ReflectorEvent => ({ type: 'modified', object: o });
export const deleted = (o: KubeObject): ReflectorEvent => ({ type: 'deleted', object: o });

/**
 * A subscriber's `process` step that finishes only when the test says so: each event opens a step
 * (recorded with `record`, if given) that stays in flight until `finishOne()` completes the oldest.
 */
export function gated(record?: (e: InformerEvent) => void) {
  const steps: Subject<void>[] = [];
  return {
    steps,
    process: (e: InformerEvent) => {
      record?.(e);
      const s = new Subject<void>();
      steps.push(s);
      return s;
    },
    finishOne: () => steps.shift()?.complete(),
  };
}
