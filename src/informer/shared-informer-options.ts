import type { Observable, SchedulerLike } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ListWatcher } from '../api/list-watcher.js';
import type { ResourceType } from '../api/resource.js';
import type { FreezeMode } from '../cache/freeze-object.js';
import type { Indexers } from '../cache/store.js';
import type { ListWatchScope } from '../client/http-list-watcher.js';
import type { KubeClientBase } from '../client/kube-client-base.js';
import type { ListWatchOptions } from '../reflector/list-watch-options.js';
import type { Reflector } from '../reflector/reflector.js';
import type { ReflectorEvent } from '../reflector/reflector-event.js';

/**
 * Where an informer's events come from:
 * - any `Observable<ReflectorEvent>` (tests, custom sources), cold: subscribed when the informer starts;
 * - a {@link Reflector} (`{ events$, status$ }`), whose status becomes the informer's `status$`;
 * - a `ListWatcher` transport (`{ listWatcher, listWatch? }`), run through `reflector()`;
 * - a resource of a client (`{ client, resource, scope?, listWatch? }`).
 */
export type InformerSource<T extends KubeObject = KubeObject> =
  | Observable<ReflectorEvent<T>>
  | Reflector<T>
  | { readonly listWatcher: ListWatcher<T>; readonly listWatch?: ListWatchOptions }
  | {
      readonly client: KubeClientBase;
      readonly resource: ResourceType<T>;
      readonly scope?: ListWatchScope;
      readonly listWatch?: ListWatchOptions;
    };

/** Options of {@link sharedInformer}. Durations in ms. */
export interface SharedInformerOptions<T extends KubeObject = KubeObject> {
  /** Name in errors and logs. Default: the resource's kind for a `{ client, resource }` source, else `informer`. */
  readonly name?: string;
  /** The resource type served (the informer's `resource`). Default: a `{ client, resource }` source's. */
  readonly resource?: ResourceType<T>;
  /** Index functions of the cache (more can be added with `withIndex` or `addIndexers`, before or after start). */
  readonly indexers?: Indexers<T>;
  /**
   * Applied to every object before it is cached (DF-7); must not mutate its input. Default
   * `dropManagedFields`; `null` disables. With a `listWatcher` or `client` source, list items are
   * transformed as soon as their page is parsed (the reflector's `listItemTransform`), so a large
   * list never holds all its untransformed objects at once; still once per object.
   */
  readonly transform?: ((object: T) => T) | null;
  /** How cached objects are frozen. Default `'deep'`: no mutable reference into the cache is handed out. */
  readonly freeze?: FreezeMode;
  /**
   * SI-1: the resync period of subscribers that do not set one, and the informer's initial resync
   * check period. Default 0: no resync (unless a subscriber that asks for one joins before start, SI-8).
   */
  readonly defaultResyncPeriodMs?: number;
  /** How long the list/watch keeps running after the last subscriber left. Default 0. */
  readonly stopGraceMs?: number;
  /**
   * Whether a relist delivers an `update` for objects whose resourceVersion did not change.
   * Default `false`: a relist notifies only what changed (periodic resync, `defaultResyncPeriodMs`
   * or a subscriber's `resyncPeriodMs`, is the way to be handed every object again). `true` is
   * client-go's behaviour: every relisted object that was cached comes as an `update` marked
   * `resync` (equal resourceVersions).
   */
  readonly relistUnchanged?: boolean;
  /** Scheduler of the resync timer, the stop grace, `waitForSync`'s timeout and `state$`'s batching. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** How long `state$` gathers changes into one snapshot, in ms. Default 0: one snapshot per scheduler tick. */
  readonly stateBatchMs?: number;
}
