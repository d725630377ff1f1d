import { map, merge, mergeMap, type Observable, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { deletionHandlingKey, type ObjectKey } from '../cache/keys.js';
import type { Store } from '../cache/store.js';

/**
 * One side of a join: an indexed store (an informer's cache) and how its objects name the join
 * value. `index` must be an index of `store` whose values are exactly `on(object)`.
 */
export interface JoinSide<T extends KubeObject> {
  readonly store: Store<T>;
  readonly index: string;
  readonly on: (object: T) => readonly string[];
}

/** An event of the left or the right side of a join. */
export type JoinInput<L extends KubeObject, R extends KubeObject> =
  | { readonly side: 'left'; readonly event: InformerEvent<L> }
  | { readonly side: 'right'; readonly event: InformerEvent<R> };

/** The joined view of one left object: `left` is undefined once it is deleted. */
export interface Joined<L extends KubeObject, R extends KubeObject> {
  readonly key: ObjectKey;
  readonly left: L | undefined;
  readonly right: readonly R[];
}

/** Reads the joined view of one left key from the two stores (`left` undefined when it is not cached). */
export function joinedView<L extends KubeObject, R extends KubeObject>(
  left: JoinSide<L>,
  right: JoinSide<R>,
): (key: ObjectKey) => Joined<L, R> {
  const rightOf = (l: L): R[] => {
    const seen = new Set<R>();
    for (const v of left.on(l)) for (const r of right.store.byIndex(right.index, v)) seen.add(r);
    return [...seen];
  };
  return (key) => {
    const l = left.store.get(key);
    return { key, left: l, right: l === undefined ? [] : rightOf(l) };
  };
}

/** Tags two event streams as the left and right inputs of {@link join}. */
export function joinInputs<L extends KubeObject, R extends KubeObject>(
  left$: Observable<InformerEvent<L>>,
  right$: Observable<InformerEvent<R>>,
): Observable<JoinInput<L, R>> {
  return merge(
    left$.pipe(map((event) => ({ side: 'left', event }) as const)),
    right$.pipe(map((event) => ({ side: 'right', event }) as const)),
  );
}

/**
 * A declarative join of two indexed stores, kept current by their events: for every change on
 * either side it emits the joined view of each affected left object, read from the stores at that
 * moment (the stores must already hold the change, as an informer's cache does when it delivers).
 * A left change affects that object; a right change affects every left object indexed under the
 * right object's join values — old and new, so a moved object updates both places. Within one
 * event each left key is emitted once. `map(j => j.key)` gives the affected keys for a work queue.
 *
 * Pods ⋈ nodes (`pod.spec.nodeName = node.metadata.name`):
 * ```
 * left:   pods  { index 'node', on: p => [p.spec.nodeName] }
 * right:  nodes { index 'name', on: n => [n.metadata.name] }
 * input:  --P(p1 on n1)--N(n1 changed)--P(p2 on n1)--N(n1 deleted)--|
 * output: --{p1,[n1]}----{p1,[n1']}-----{p2,[n1']}---(p1,[] p2,[])--|
 * ```
 * An `IndexHandle` is a join side: `join(pods.by('node'), nodes.by('name'))`. This operator emits
 * as soon as events arrive, before the caches are complete; `joinOn` waits for both informers.
 *
 * Owners ⋈ owned: left = owners `{ index 'uid', on: o => [uid] }`, right = owned objects
 * `{ index 'owner', on: o => ownerRefs uids }` — every owned change re-emits its owners with all
 * their owned objects.
 */
export function join<L extends KubeObject, R extends KubeObject>(
  left: JoinSide<L>,
  right: JoinSide<R>,
): OperatorFunction<JoinInput<L, R>, Joined<L, R>> {
  const view = joinedView(left, right);
  return mergeMap((input: JoinInput<L, R>): Joined<L, R>[] => {
    if (input.side === 'left') {
      const o = input.event.object;
      return [view(o instanceof DeletedFinalStateUnknown ? o.key : deletionHandlingKey(o))];
    }
    const e = input.event;
    const values = new Set<string>();
    const add = (r: R | DeletedFinalStateUnknown<R> | null): void => {
      const obj = r instanceof DeletedFinalStateUnknown ? r.object : r;
      if (obj !== null) for (const v of right.on(obj)) values.add(v);
    };
    if (e.type === 'update') add(e.old);
    add(e.object);
    const keys = new Set<ObjectKey>();
    for (const v of values) for (const k of left.store.indexKeys(left.index, v)) keys.add(k);
    return [...keys].sort().map(view);
  });
}
