import { Observable } from 'rxjs';
import type { ClusterEvent, ClusterTarget } from './controller-options.js';

/** A set of clusters by name: a `Map` or a plain record. */
export type ClusterSet = ReadonlyMap<string, ClusterTarget> | Readonly<Record<string, ClusterTarget>>;

/**
 * The changes between successive sets of clusters, as `ClusterEvent`s for a controller's
 * `clusters`: a name new in a set is `added`, a name whose target is another object than in the
 * previous set is `changed`, a name missing from a set is `removed`. The first set adds all of its
 * clusters. Completes and errors with `sets$`.
 *
 * ```
 * sets$:   {a}---{a,b}---{b'}----|
 * events:  +a----+b-------a,~b---|     + added, - removed, ~ changed
 * ```
 */
export function clusterSetChanges(sets$: Observable<ClusterSet>): Observable<ClusterEvent> {
  return new Observable<ClusterEvent>((subscriber) => {
    let previous = new Map<string, ClusterTarget>();
    return sets$.subscribe({
      next: (set) => {
        const next = set instanceof Map ? new Map(set) : new Map(Object.entries(set as Readonly<Record<string, ClusterTarget>>));
        for (const name of previous.keys()) if (!next.has(name)) subscriber.next({ type: 'removed', name });
        for (const [name, cluster] of next) {
          const was = previous.get(name);
          if (was === undefined) subscriber.next({ type: 'added', name, cluster });
          else if (was !== cluster) subscriber.next({ type: 'changed', name, cluster });
        }
        previous = next;
      },
      error: (err: unknown) => subscriber.error(err),
      complete: () => subscriber.complete(),
    });
  });
}
