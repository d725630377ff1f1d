import { BehaviorSubject, combineLatest, concat, defer, EMPTY, from, map, NEVER, type Observable, of, share, tap } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { Indexer } from '../cache/indexer.js';
import { metaNamespaceKey } from '../cache/keys.js';
import type { Indexers } from '../cache/store.js';
import type { ControllerSource, SourceRegistration } from '../controller/controller-source.js';
import type { ResourceType } from '../api/resource.js';

/** Options of {@link fakeSource}. */
export interface FakeSourceOptions<T extends KubeObject> {
  /** The type the source serves. */
  readonly resource: ResourceType;
  /** Objects already listed: every registration starts with them as initial-list adds. */
  readonly initial?: readonly T[];
  /** Live events after the initial list (e.g. a hot marble); applied to the store as they pass. */
  readonly events$?: Observable<InformerEvent<T>>;
  /** When the source counts as synced (default: at once). Registrations sync after it AND their initial adds. */
  readonly synced$?: Observable<boolean>;
  readonly indexers?: Indexers<T>;
  readonly name?: string;
}

/** A {@link ControllerSource} for tests, with its live stream exposed. */
export interface FakeSource<T extends KubeObject> extends ControllerSource<T> {
  readonly store: Indexer<T>;
  /** How many registrations were opened. */
  readonly registrations: number;
}

/**
 * An in-memory informer for controller tests (e.g. in virtual time with marbles): `initial`
 * objects are cached and replayed to each registration as `add`s with `isInInitialList: true`,
 * then `events$` is shared by all registrations and applied to the store before delivery.
 *
 * ```ts
 * const cms = fakeSource({ resource: resources.configMaps, initial: [cm('a')], events$: m.hot('--b', { b: added(cm('b')) }) });
 * ```
 */
export function fakeSource<T extends KubeObject>(options: FakeSourceOptions<T>): FakeSource<T> {
  const store = new Indexer<T>({ ...(options.indexers === undefined ? {} : { indexers: options.indexers }), freeze: 'none' });
  for (const o of options.initial ?? []) store.upsert(o);
  const live$ = (options.events$ ?? NEVER).pipe(
    tap((e) => {
      if (e.type === 'delete') store.delete(e.object);
      else store.upsert(e.object);
    }),
    share(),
  );
  const sourceSynced$ = options.synced$ ?? of(true);
  let registrations = 0;
  return {
    resource: options.resource,
    ...(options.name === undefined ? {} : { name: options.name }),
    store,
    get registrations() {
      return registrations;
    },
    register(): SourceRegistration<T> {
      registrations++;
      const delivered = new BehaviorSubject(false);
      const events$ = defer(() => {
        const snapshot = store.list().map((object): InformerEvent<T> => ({ type: 'add', object, isInInitialList: true }));
        return concat(from(snapshot), defer(() => (delivered.next(true), EMPTY)), live$);
      });
      const synced$ = combineLatest([sourceSynced$, delivered]).pipe(map(([a, b]) => a && b));
      return { events$, synced$ };
    },
  };
}

/** An `add` event (`isInInitialList` false unless given). */
export function added<T extends KubeObject>(object: T, isInInitialList = false): InformerEvent<T> {
  return { type: 'add', object, isInInitialList };
}

/** An `update` event; `resync` when both carry the same resourceVersion. */
export function updated<T extends KubeObject>(old: T, object: T): InformerEvent<T> {
  return { type: 'update', old, object, resync: old.metadata?.resourceVersion === object.metadata?.resourceVersion };
}

/** A `delete` event; `tombstone: true` wraps the object in a DeletedFinalStateUnknown. */
export function deleted<T extends KubeObject>(object: T, tombstone = false): InformerEvent<T> {
  return { type: 'delete', object: tombstone ? new DeletedFinalStateUnknown(metaNamespaceKey(object), object) : object };
}
