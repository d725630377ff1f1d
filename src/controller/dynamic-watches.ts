import { type Observable, Subscription, takeWhile } from 'rxjs';
import type { Logger } from '../logging/logger.js';
import type { WorkQueueAdd } from '../workqueue/request.js';
import type { DynamicBinder } from './dynamic-binding.js';
import { dynamicWatchKey, type DynamicWatchSpec } from './dynamic-watch-spec.js';

/** Most dynamic watches one controller keeps at once; entries beyond it are refused (logged). */
export const MAX_DYNAMIC_WATCHES = 1000;

/** A controller's dynamic watches: the changing set of specs, and how one becomes a binding. */
export interface DynamicWatches {
  readonly specs$: Observable<readonly DynamicWatchSpec[]>;
  readonly bind: DynamicBinder;
}

/** One watch of the current set. */
interface ActiveWatch {
  readonly subscription: Subscription;
  readonly release: () => void;
}

/**
 * Follows a controller's set of dynamic watches while subscribed to (the returned subscription):
 * each emission is the whole set, diffed by key against the one before. A new key registers a
 * handler on its source and pushes its requests (the source's cache first, as initial adds); a key
 * gone from the set unsubscribes its handler at once — no event of that source is turned into a
 * request after that, while reconciles already queued or running are left alone — and releases
 * its informer lease. An entry already in the set keeps its handler (a changed spec under the same
 * key is not rebound). An entry that cannot be bound, or whose source fails, is logged and left
 * out (a later emission may add it again); the set's own error is logged and keeps the watches.
 */
export function followDynamicWatches(watches: DynamicWatches, push: (add: WorkQueueAdd) => void, logger: () => Logger): Subscription {
  const active = new Map<string, ActiveWatch>();
  const drop = (key: string, why: string): void => {
    const watch = active.get(key);
    if (watch === undefined) return;
    active.delete(key);
    watch.subscription.unsubscribe();
    watch.release();
    logger().info('dynamic watch removed', { watch: key, why });
  };
  const add = (key: string, spec: DynamicWatchSpec): void => {
    if (active.size >= MAX_DYNAMIC_WATCHES) {
      logger().error('dynamic watch refused: too many dynamic watches', { watch: key, max: MAX_DYNAMIC_WATCHES });
      return;
    }
    let bound;
    try {
      bound = watches.bind(spec);
    } catch (err) {
      logger().error('dynamic watch refused', { watch: key, err });
      return;
    }
    const subscription = new Subscription();
    const watch: ActiveWatch = { subscription, release: bound.release };
    active.set(key, watch);
    logger().info('dynamic watch added', { watch: key });
    const registration = bound.binding.source.register();
    subscription.add(
      registration.events$
        .pipe(
          // Belt and braces: an event delivered while the removal is under way is dropped too.
          takeWhile(() => active.get(key) === watch),
          bound.binding.toRequests,
        )
        .subscribe({
          next: push,
          error: (err: unknown) => {
            logger().error('dynamic watch failed', { watch: key, err });
            drop(key, 'its source failed');
          },
        }),
    );
  };
  const set = watches.specs$.subscribe({
    next: (specs) => {
      const wanted = new Map<string, DynamicWatchSpec>();
      for (const spec of Array.isArray(specs) ? (specs as readonly DynamicWatchSpec[]) : []) {
        const key = dynamicWatchKey(spec);
        if (key === undefined) logger().error('dynamic watch refused: an entry without a source', {});
        else if (!wanted.has(key)) wanted.set(key, spec);
      }
      for (const key of [...active.keys()]) if (!wanted.has(key)) drop(key, 'no longer in the set');
      for (const [key, spec] of wanted) if (!active.has(key)) add(key, spec);
    },
    error: (err: unknown) => logger().error('dynamicWatches failed: the current watches are kept, no more changes', { err }),
  });
  return new Subscription(() => {
    set.unsubscribe();
    for (const key of [...active.keys()]) drop(key, 'controller stopped');
  });
}
