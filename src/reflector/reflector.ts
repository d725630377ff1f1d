import { type Observable, Subject } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { listWatch } from './list-watch.js';
import type { ListWatchOptions } from './list-watch-options.js';
import type { ListWatcher } from '../api/list-watcher.js';
import type { ReflectorEvent } from './reflector-event.js';
import type { ReflectorStatus } from './reflector-status.js';

/** The two streams of {@link reflector}. */
export interface Reflector<T extends KubeObject = KubeObject> {
  /** `listWatch(listWatcher, options)`: cold, one list/watch per subscription. */
  readonly events$: Observable<ReflectorEvent<T>>;
  /** Status of every running subscription of `events$` (hot; never completes). */
  readonly status$: Observable<ReflectorStatus>;
}

/**
 * `listWatch` with its status as an Observable instead of an observer option:
 *
 * ```ts
 * const { events$, status$ } = reflector(podsListWatcher);
 * status$.pipe(filter((s) => s.type === 'backingOff')).subscribe(log);
 * events$.subscribe(apply);
 * ```
 *
 * `status$` is hot: subscribe to it before `events$` to see the first `connecting`. An observer in
 * `options.status` still receives every update as well.
 */
export function reflector<T extends KubeObject = KubeObject>(
  listWatcher: ListWatcher<T>,
  options: ListWatchOptions = {},
): Reflector<T> {
  const status = new Subject<ReflectorStatus>();
  const user = options.status;
  const events$ = listWatch(listWatcher, {
    ...options,
    status: {
      next: (s) => {
        status.next(s);
        user?.next?.(s);
      },
      complete: () => user?.complete?.(),
    },
  });
  return { events$, status$: status.asObservable() };
}
