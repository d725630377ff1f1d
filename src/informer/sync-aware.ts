import {
  type MonoTypeOperatorFunction,
  Observable,
  Subscription,
  combineLatest,
  defer,
  filter,
  first,
  merge,
  mergeMap,
} from 'rxjs';
import type { Cached, KubeObject } from '../api/kube-object.js';
import { join, joinedView, joinInputs, type Joined } from './join.js';
import type { IndexHandle } from './typed-index.js';

/** What {@link whenSynced} needs of an informer: its sync state and a way to keep it running. */
export interface SyncGate {
  readonly synced$: Observable<boolean>;
  readonly run$: Observable<never>;
}

/**
 * Holds a pipeline until every given informer has its initial list: on subscribe it starts the
 * informers (through `run$`, sharing their one list/watch) and subscribes to the source only once
 * all of them are synced, keeping them running until unsubscribed. A cold source that reads the
 * caches — `events$` (whose late subscriber gets the cache as initial adds), `join`,
 * `combineLatest` of lookups — therefore never computes from a half-loaded cache.
 *
 * An informer failure (its `run$` erroring) errors the pipeline. With no informer it is the
 * identity.
 *
 * ```
 * pods listed at frame 3, nodes at frame 5; source = pods.events$ (cold: a late subscriber gets the cache as adds)
 * without:  ---a----    a: add p1 while the nodes cache is still empty
 * with:     -----a--    subscribed at 5: add p1, both caches loaded
 * ```
 */
export function whenSynced<V>(...informers: readonly SyncGate[]): MonoTypeOperatorFunction<V> {
  return (source) =>
    informers.length === 0
      ? source
      : new Observable<V>((subscriber) => {
          const subscription = new Subscription();
          for (const informer of informers) subscription.add(informer.run$.subscribe({ error: (err: unknown) => subscriber.error(err) }));
          subscription.add(
            combineLatest(informers.map((i) => i.synced$))
              .pipe(first((all) => all.every(Boolean)))
              .subscribe(() => subscription.add(source.subscribe(subscriber))),
          );
          return subscription;
        });
}

/**
 * A join of two informers through their declared indexes, that waits for both caches: nothing is
 * emitted until both informers have their initial lists; then the joined view of every left object
 * (sorted by key), then, as `join` does, the views of the left objects each change affects. The
 * index handles carry the informers, stores and index functions, so no index name is written twice.
 *
 * Deployments ⋈ ReplicaSets (a ReplicaSet joins the Deployment that owns it):
 * ```
 * joinOn(deployments.by('uid'), replicaSets.by('owner'))
 * deployments:  --L----------u     L: list [d1, d2]   u: d2 updated (rv 2)
 * replicaSets:  -----L----a---     L: list [r1 (of d1), r2 (of d2)]   a: r3 (of d2) added
 * output:       -----(AB)-C--D     A {d1: r1}  B {d2: r2}  C {d2: r2, r3}  D {d2@2: r2, r3}
 * ```
 * Until the later of the two syncs nothing is emitted: the first table has no object wrongly
 * orphaned. Unsubscribing releases both listener registrations (and so the list/watches, unless
 * something else keeps the informers running).
 */
export function joinOn<L extends KubeObject, R extends KubeObject>(
  left: IndexHandle<L>,
  right: IndexHandle<R>,
): Observable<Joined<Cached<L>, Cached<R>>> {
  return defer(() => {
    const view = joinedView<Cached<L>, Cached<R>>(left, right);
    const l = left.informer.listen({ name: `${left.informer.name}/join` });
    const r = right.informer.listen({ name: `${right.informer.name}/join` });
    let ready = false;
    const live$ = joinInputs(l.events$, r.events$).pipe(
      filter(() => ready),
      join(left, right),
    );
    const initial$ = combineLatest([l.synced$, r.synced$]).pipe(
      first(([a, b]) => a && b),
      mergeMap(() => {
        ready = true;
        return left.store.listKeys().sort().map(view);
      }),
    );
    return merge(live$, initial$);
  });
}
