/**
 * The controller under test: deletes ConfigMaps once the time in their
 * `example.com/expires-at` annotation has passed, and until then asks to be woken at that time.
 *
 * Written to be testable: the clock and timers come from `scheduler` (virtual time in tests) and
 * the delete is injectable (the real one goes through `ctx.objects()`).
 */
import { asyncScheduler, from, last, map, type ObservableInput, type SchedulerLike } from 'rxjs';
import { controller, type Controller, type ControllerSource, type KubeObject, type RateLimiter, type ReconcileContext, type Request } from 'rxkube';

export const EXPIRES_AT = 'example.com/expires-at';

export interface TtlControllerOptions {
  /** The ConfigMaps: a shared informer (through `informerSource`), or `fakeSource` in tests. */
  readonly configMaps: ControllerSource;
  /** Deletes one ConfigMap; default `ctx.objects().delete(name)`. */
  readonly remove?: (request: Request, ctx: ReconcileContext) => ObservableInput<unknown>;
  readonly scheduler?: SchedulerLike;
  /** Retry delays after an error; default the work queue's (5 ms doubling up to 1000 s). */
  readonly rateLimiter?: RateLimiter;
  readonly name?: string;
}

export function ttlController(options: TtlControllerOptions): Controller {
  const scheduler = options.scheduler ?? asyncScheduler;
  const remove = options.remove ?? ((request, ctx) => ctx.objects().delete(request.name));
  return controller({
    name: options.name ?? 'configmap-ttl',
    for: options.configMaps,
    scheduler,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
    // An Observable (not a Promise) reconcile runs entirely on the scheduler, so in a test it
    // finishes in virtual time, on the frame the marble diagram says.
    reconcile: (request, ctx) => {
      const expiresAt = expiry(ctx.object);
      if (expiresAt === undefined) return undefined; // gone, or never expires
      const left = expiresAt - scheduler.now();
      if (left > 0) return { requeueAfter: left }; // wake up when it expires
      return from(remove(request, ctx)).pipe(
        last(null, undefined),
        map(() => ctx.logger.info('deleted expired ConfigMap')),
      );
    },
  });
}

/** The expiry time (ms since the epoch) of a ConfigMap, if it has a valid one. */
export function expiry(cm: KubeObject | undefined): number | undefined {
  const value = cm?.metadata?.annotations?.[EXPIRES_AT];
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
