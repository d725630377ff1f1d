/**
 * A scripted, in-memory ListWatcher for virtual-time tests of the reflector.
 *
 * Each `list()` call consumes the next entry of `lists`, each `watch()` call the next entry of
 * `watches`; when a script runs out the call hangs (never emits, never completes). Every call
 * records its options, its virtual start time and when it ended or was unsubscribed.
 */
import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { Status } from '../../src/api/status.js';
import { ApiError } from '../../src/client/api-error.js';
import type { ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from '../../src/api/list-watcher.js';

/** A scripted list answer: a page (after `at` ms), or an error (after `at` ms). */
export type ListStep =
  | { readonly page: ListPage; readonly at?: number }
  | { readonly error: unknown; readonly at?: number }
  | { readonly hang: true }
  | Observable<ListPage>;

/** A scripted watch: timed events, then complete at `closeAt`, error at `errorAt`, or hang. */
export type WatchStep =
  | {
      readonly events?: ReadonlyArray<readonly [number, WatchEvent]>;
      readonly closeAt?: number;
      readonly errorAt?: number;
      readonly error?: unknown;
    }
  | Observable<WatchEvent>;

export interface FakeCall<O> {
  readonly options: O;
  readonly at: number;
  endedAt: number | undefined;
  unsubscribedAt: number | undefined;
}

export interface FakeListWatcher extends ListWatcher<KubeObject> {
  readonly listCalls: FakeCall<ListOptions>[];
  readonly watchCalls: FakeCall<WatchOptions>[];
}


export function fakeListWatcher(
  scheduler: SchedulerLike,
  script: { lists?: ListStep[]; watches?: WatchStep[]; supportsStreamingList?: boolean },
): FakeListWatcher {
  const lists = [...(script.lists ?? [])];
  const watches = [...(script.watches ?? [])];
  const listCalls: FakeCall<ListOptions>[] = [];
  const watchCalls: FakeCall<WatchOptions>[] = [];

  function tracked<V, O>(calls: FakeCall<O>[], options: O, body: (sub: import('rxjs').Subscriber<V>) => () => void) {
    return new Observable<V>((sub) => {
      const call: FakeCall<O> = { options, at: scheduler.now(), endedAt: undefined, unsubscribedAt: undefined };
      calls.push(call);
      const teardown = body({
        next: (v: V) => sub.next(v),
        error: (e: unknown) => {
          call.endedAt = scheduler.now();
          sub.error(e);
        },
        complete: () => {
          call.endedAt = scheduler.now();
          sub.complete();
        },
      } as import('rxjs').Subscriber<V>);
      return () => {
        if (call.endedAt === undefined) call.unsubscribedAt = scheduler.now();
        teardown();
      };
    });
  }

  const lw: FakeListWatcher = {
    listCalls,
    watchCalls,
    // A scripted server follows whatever script it is given, streaming lists included.
    supportsStreamingList: script.supportsStreamingList ?? true,
    list(options: ListOptions): Observable<ListPage> {
      const step = lists.shift();
      return tracked<ListPage, ListOptions>(listCalls, options, (sub) => {
        if (step === undefined || 'hang' in step) return () => undefined;
        if (step instanceof Observable) {
          const s = step.subscribe(sub);
          return () => s.unsubscribe();
        }
        const s = scheduler.schedule(() => {
          if ('page' in step) {
            sub.next(step.page);
            sub.complete();
          } else sub.error(step.error);
        }, step.at ?? 0);
        return () => s.unsubscribe();
      });
    },
    watch(options: WatchOptions): Observable<WatchEvent> {
      const step = watches.shift();
      return tracked<WatchEvent, WatchOptions>(watchCalls, options, (sub) => {
        if (step === undefined) return () => undefined;
        if (step instanceof Observable) {
          const s = step.subscribe(sub);
          return () => s.unsubscribe();
        }
        const timers: Subscription[] = [];
        for (const [at, event] of step.events ?? []) timers.push(scheduler.schedule(() => sub.next(event), at));
        if (step.errorAt !== undefined) timers.push(scheduler.schedule(() => sub.error(step.error), step.errorAt));
        if (step.closeAt !== undefined) timers.push(scheduler.schedule(() => sub.complete(), step.closeAt));
        return () => timers.forEach((t) => t.unsubscribe());
      });
    },
  };
  return lw;
}

// ---- builders ------------------------------------------------------------------------------------

/** A ConfigMap-like object in namespace `ns`. */
export function obj(name: string, resourceVersion: string, ns = 'default'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, resourceVersion } };
}

export function page(items: KubeObject[], resourceVersion: string, cont?: string): ListPage {
  return { items, resourceVersion, ...(cont !== undefined ? { continue: cont } : {}) };
}

export const added = (o: KubeObject): WatchEvent => ({ type: 'ADDED', object: o });
export const modified = (o: KubeObject): WatchEvent => ({ type: 'MODIFIED', object: o });
export const deleted = (o: KubeObject): WatchEvent => ({ type: 'DELETED', object: o });
export function bookmark(resourceVersion: string, annotations?: Record<string, string>): WatchEvent {
  return {
    type: 'BOOKMARK',
    object: { kind: 'ConfigMap', metadata: { resourceVersion, ...(annotations ? { annotations } : {}) } },
  };
}
export const initialEventsEnd = (rv: string): WatchEvent => bookmark(rv, { 'k8s.io/initial-events-end': 'true' });
export const errorEvent = (status: Status): WatchEvent => ({ type: 'ERROR', object: status });

export function apiError(code: number, reason: string, extra: Partial<Status> = {}, retryAfterSeconds?: number): ApiError {
  return new ApiError(
    { kind: 'Status', status: 'Failure', code, reason, message: `${reason} (test)`, ...extra },
    retryAfterSeconds !== undefined ? { retryAfterSeconds } : {},
  );
}
export const gone = (): ApiError => apiError(410, 'Gone');
export const expired = (): ApiError => apiError(410, 'Expired');
export const tooManyRequests = (retryAfterSeconds?: number): ApiError => apiError(429, 'TooManyRequests', {}, retryAfterSeconds);
export const internalError = (): ApiError => apiError(500, 'InternalError');
export const unauthorized = (): ApiError => apiError(401, 'Unauthorized');
export const tooLarge = (): ApiError =>
  apiError(504, 'Timeout', { details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] } });

/** A Node-style connection-refused error. */
export function connectionRefused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
}
/** A Node-style connection-reset error. */
export function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}
