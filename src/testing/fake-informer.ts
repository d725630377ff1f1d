import { concat, defer, finalize, first, map, merge, mergeMap, NEVER, type Observable, of, Subject, tap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { deletionHandlingKey, type ObjectKey } from '../cache/keys.js';
import { sharedInformer } from '../informer/shared-informer.js';
import type { SharedInformer } from '../informer/shared-informer-interface.js';
import type { SharedInformerOptions } from '../informer/shared-informer-options.js';
import type { ReflectorEvent } from '../reflector/reflector-event.js';

/** Options of {@link fakeInformer}: those of `sharedInformer`, plus what the fake API serves. */
export interface FakeInformerOptions<T extends KubeObject> extends SharedInformerOptions<T> {
  /** Objects the fake API holds at first; each start lists what it holds then. */
  readonly initial?: readonly T[];
  /**
   * When a start's list arrives: at the first value of this (e.g. a marble `'---x'`); default at
   * once. The informer is synced once it has the list.
   */
  readonly listed$?: Observable<unknown>;
  /** Live changes after the list (e.g. a hot marble of `added` / `updated` / `deleted`); they also update what the fake API holds. */
  readonly events$?: Observable<InformerEvent<T>>;
}

/**
 * A {@link SharedInformer} (the real one, run on an in-memory source) plus a few controls for the
 * test. Hand it to production code typed against `SharedInformer` unchanged.
 */
export interface FakeInformer<T extends KubeObject> extends SharedInformer<T> {
  /** Creates or replaces `object` in the fake API (delivered as a watch event while running). */
  set(object: T): void;
  /** Deletes `object` (or the object under its key) from the fake API. */
  remove(object: T): void;
  /** Whether the informer's list/watch is open (it closes when the last subscriber leaves). */
  readonly watching: boolean;
  /** How many times the list/watch was opened. */
  readonly starts: number;
}

/**
 * An informer for tests with exactly `SharedInformer`'s shape (`events$`, `store`, `synced$`,
 * `state$`, `listen`, `withIndex`, `by` …): it is `sharedInformer` itself over an in-memory
 * source, so subscriber backlogs, late-subscriber replay, sync and `state$` behave as in
 * production. Each start lists the fake API's objects (when `listed$` says), then delivers
 * `events$` and the `set` / `remove` controls as watch events. Objects are not transformed
 * (`transform: null` unless given).
 *
 * ```ts
 * const pods = fakeInformer<K8s.Pod>({ initial: [podNamed('a')], events$: m.hot('--b', { b: added(podNamed('b')) }) });
 * m.expect(podsPerNode(nodes, pods)).toBeObservable(m.cold('a-b', { a: 1, b: 2 }));
 * ```
 */
export function fakeInformer<T extends KubeObject>(options: FakeInformerOptions<T> = {}): FakeInformer<T> {
  const { initial, listed$, events$, ...informerOptions } = options;
  const held = new Map<ObjectKey, T>();
  for (const o of initial ?? []) held.set(deletionHandlingKey(o), o);
  const controls = new Subject<ReflectorEvent<T>>();
  let watching = false;
  let starts = 0;
  let rv = 0;

  const apply = (event: ReflectorEvent<T>): void => {
    if (event.type === 'added' || event.type === 'modified') held.set(deletionHandlingKey(event.object), event.object);
    else if (event.type === 'deleted') held.delete(deletionHandlingKey(event.object));
  };
  const toReflector = (e: InformerEvent<T>): ReflectorEvent<T>[] => {
    if (e.type === 'add') return [{ type: 'added', object: e.object }];
    if (e.type === 'update') return [{ type: 'modified', object: e.object }];
    if (!(e.object instanceof DeletedFinalStateUnknown)) return [{ type: 'deleted', object: e.object }];
    const known = e.object.object ?? held.get(e.object.key);
    return known === undefined ? [] : [{ type: 'deleted', object: known }];
  };

  const source: Observable<ReflectorEvent<T>> = defer(() => {
    watching = true;
    starts++;
    const list$ = (listed$ ?? of(undefined)).pipe(
      first(),
      map((): ReflectorEvent<T> => ({ type: 'replace', items: [...held.values()], resourceVersion: String(++rv) })),
    );
    const live$ = merge((events$ ?? NEVER).pipe(mergeMap(toReflector)), controls).pipe(tap(apply));
    return concat(list$, live$).pipe(
      finalize(() => {
        watching = false;
      }),
    );
  });

  const informer = sharedInformer<T>(source, { transform: null, name: 'fake', ...informerOptions });
  const control = {
    set: (object: T) => {
      const key = deletionHandlingKey(object);
      const event: ReflectorEvent<T> = { type: held.has(key) ? 'modified' : 'added', object };
      apply(event);
      controls.next(event);
    },
    remove: (object: T) => {
      const known = held.get(deletionHandlingKey(object));
      if (known === undefined) return;
      const event: ReflectorEvent<T> = { type: 'deleted', object: known };
      apply(event);
      controls.next(event);
    },
  };
  Object.defineProperties(informer, {
    set: { value: control.set, enumerable: true },
    remove: { value: control.remove, enumerable: true },
    watching: { get: () => watching, enumerable: true },
    starts: { get: () => starts, enumerable: true },
  });
  return informer as FakeInformer<T>;
}
