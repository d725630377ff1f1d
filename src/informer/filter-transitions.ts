import { Observable, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';

/**
 * Filters handler notifications by a predicate on the object, turning updates that cross the
 * filter into adds and deletes (CT-3); {@link filterTransition} applied to each event, a throwing
 * predicate erroring the stream.
 *
 * ```
 * predicate: object.ready
 * events:  --add(ready)--add(!ready)--upd(!ready→ready)--upd(ready→!ready)--upd(!→!)--|
 * output:  --add(ready)---------------add(ready)---------delete(ready)----------------|
 * ```
 */
export function filterTransitions<T extends KubeObject>(
  predicate: (object: T) => boolean,
): OperatorFunction<InformerEvent<T>, InformerEvent<T>> {
  return (source) =>
    new Observable<InformerEvent<T>>((subscriber) =>
      source.subscribe({
        next: (event) => {
          let out: InformerEvent<T> | undefined;
          try {
            out = filterTransition(event, predicate);
          } catch (err) {
            subscriber.error(err);
            return;
          }
          if (out !== undefined) subscriber.next(out);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      }),
    );
}

/**
 * CT-3, client-go's filtering handler, for one notification (`undefined`: filtered out). The one
 * place this rule lives: {@link filterTransitions}, informer listeners and controllers use it.
 * - `add` / `delete`: passed iff `predicate(object)`; a tombstone is judged by its last known
 *   object, and a tombstone without one is passed (its state is unknown, a consumer must be able
 *   to clean up).
 * - `update`: old and new pass → `update`; only new → `add` (`isInInitialList: false`);
 *   only old → `delete` of the old object; neither → nothing.
 *
 * A throwing predicate throws.
 */
export function filterTransition<T extends KubeObject>(
  event: InformerEvent<T>,
  predicate: (object: T) => boolean,
): InformerEvent<T> | undefined {
  switch (event.type) {
    case 'add':
      return predicate(event.object) ? event : undefined;
    case 'delete': {
      const o = event.object;
      if (o instanceof DeletedFinalStateUnknown) return o.object === null || predicate(o.object) ? event : undefined;
      return predicate(o) ? event : undefined;
    }
    case 'update': {
      const newPasses = predicate(event.object);
      const oldPasses = predicate(event.old);
      if (newPasses && oldPasses) return event;
      if (newPasses) return { type: 'add', object: event.object, isInInitialList: false };
      if (oldPasses) return { type: 'delete', object: event.old };
      return undefined;
    }
  }
}
