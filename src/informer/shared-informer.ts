import { type Observable, defer, distinctUntilChanged } from 'rxjs';
import type { Cached, KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import type { IndexFunc, Indexers, Store } from '../cache/store.js';
import type { ProcessListenerOptions } from './informer-listener.js';
import { InformerRun } from './informer-run.js';
import type { IndexHandle, SharedInformer } from './shared-informer-interface.js';
import type { InformerSource, SharedInformerOptions } from './shared-informer-options.js';
import { informerState } from './state.js';
import { declareIndex, indexHandle } from './typed-index.js';


/**
 * A shared informer (docs/semantics.md §4): reflector → `deltaFifo` → cache (`Indexer`) → per-subscriber
 * notifications. The list/watch starts with the first subscriber and stops `stopGraceMs` after the
 * last one left (a quick resubscribe does not relist); the cache stays readable while stopped and
 * is reconciled by the next relist.
 *
 * Each subscriber has its own backlog, coalesced per key (bounded by the number of keys), so a
 * slow subscriber never delays the cache or other subscribers; a failing `process` step ends that
 * subscriber alone. Cached objects are frozen, and typed {@link Cached}: everything the cache holds
 * came from the API server, which always sets `metadata.name`, `uid` and `resourceVersion`.
 *
 * ```
 * source:      -r---a-----m----|      r: replace [x], a: added y, m: modified x
 * subscriber1: ^-x---y-----x'---|     x: add x (initial), y: add y, x': update x
 * subscriber2:        ^x-y-x'---|     late: x, y replayed as initial adds, then live
 * ```
 *
 * @example
 * ```ts
 * const pods = sharedInformer({ client, resource: resources.pods },   // SharedInformer<K8s.Pod>
 *   { indexers: { byNode: (p) => [p.spec?.nodeName ?? ''] } });
 * const sub = pods.events$.subscribe((e) => console.log(e.type, e.object));
 * await pods.waitForSync(30_000);
 * pods.store.byIndex('byNode', 'node-1');
 * ```
 */
export function sharedInformer<T extends KubeObject = KubeObject>(
  source: InformerSource<T>,
  options: SharedInformerOptions<T> = {},
): SharedInformer<T> {
  const run = new InformerRun<T>(source, options);
  const indexer = run.indexer;
  // The one place the cache's objects become `Cached<T>`: the indexer holds only what the server
  // sent (a list or watch), and the server always sets name, uid and resourceVersion.
  const store = indexer as Store<T> as Store<Cached<T>>;
  const handles = new Map<string, IndexHandle<T>>();
  const informer: SharedInformer<T, string> = {
    name: run.name,
    ...(run.resource === undefined ? {} : { resource: run.resource }),
    store,
    synced$: run.synced.pipe(distinctUntilChanged()),
    hasSynced: () => run.synced.value,
    waitForSync: (timeoutMs?: number) => run.waitForSync(timeoutMs),
    get lastSyncResourceVersion() {
      return run.lastSyncResourceVersion;
    },
    errors$: run.errors.asObservable(),
    handled$: run.handled.asObservable(),
    get lastEventAt() {
      return run.lastEventAt;
    },
    status$: run.status$,
    get isRunning() {
      return run.isRunning;
    },
    get resyncCheckPeriodMs() {
      return run.resyncCheckPeriodMs;
    },
    events$: defer(() => run.listen<never>({}).events$) as Observable<InformerEvent<Cached<T>>>,
    get state$() {
      return state$;
    },
    run$: run.core$,
    listen: (<R>(opts: Partial<ProcessListenerOptions<T, R>> = {}) => run.listen<R>(opts)) as SharedInformer<T>['listen'],
    addIndexers: (more: Indexers<Cached<T>>) => indexer.addIndexers(more as Indexers<T>, { backfill: true }),
    withIndex: <N extends string>(indexName: N, fn: IndexFunc<Cached<T>>) => {
      declareIndex(indexer, indexName, fn as IndexFunc<T>);
      return informer;
    },
    by: <N extends string>(indexName: N): IndexHandle<T, N> => {
      let handle = handles.get(indexName);
      if (handle === undefined || handle.on !== indexer.getIndexers()[indexName]) {
        handle = indexHandle<T, string>(informer, indexName);
        handles.set(indexName, handle);
      }
      return handle as IndexHandle<T, N>;
    },
    backlogs: () => run.backlogs(),
    resyncPeriods: () => run.resyncPeriods(),
  };
  const state$ = informerState<Cached<T>>(informer, {
    scheduler: run.scheduler,
    ...(options.stateBatchMs === undefined ? {} : { batchMs: options.stateBatchMs }),
  });
  return informer as SharedInformer<T>;
}
