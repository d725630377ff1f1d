/**
 * The consumer's controller: deletes ConfigMaps once the time in their
 * `consumer.example/expires-at` annotation has passed, and until then asks to be woken at that
 * time. Its clock is `scheduler` (virtual time in the marble test) and its delete is injectable.
 */
import { asyncScheduler, from, last, map, type ObservableInput, type SchedulerLike } from 'rxjs';
import { controller, resources, type Controller, type ControllerSource, type K8s, type KubeClient, type ReconcileContext, type Request } from 'rxkube';

export const EXPIRES_AT = 'consumer.example/expires-at';
export const CONFIG_MAPS = resources.configMaps;

export interface ExpiryControllerOptions {
  readonly configMaps: ControllerSource<K8s.ConfigMap>;
  readonly client?: KubeClient;
  /** Deletes one ConfigMap; default `ctx.objects().delete(name)`. */
  readonly remove?: (request: Request, ctx: ReconcileContext<K8s.ConfigMap>) => ObservableInput<unknown>;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

export function expiryController(options: ExpiryControllerOptions): Controller {
  const scheduler = options.scheduler ?? asyncScheduler;
  const remove = options.remove ?? ((request: Request, ctx: ReconcileContext<K8s.ConfigMap>) => ctx.objects().delete(request.name));
  return controller({
    name: options.name ?? 'configmap-expiry',
    for: options.configMaps,
    scheduler,
    ...(options.client === undefined ? {} : { client: options.client }),
    reconcile: (request, ctx) => {
      const at = expiresAt(ctx.object);
      if (at === undefined) return undefined;
      const left = at - scheduler.now();
      if (left > 0) return { requeueAfter: left };
      return from(remove(request, ctx)).pipe(
        last(null, undefined),
        map(() => undefined),
      );
    },
  });
}

export function expiresAt(cm: K8s.ConfigMap | undefined): number | undefined {
  const value = cm?.metadata?.annotations?.[EXPIRES_AT];
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function configMap(name: string, expiresAtMs?: number, resourceVersion?: string): K8s.ConfigMap {
  const annotations: Record<string, string> = expiresAtMs === undefined ? {} : { [EXPIRES_AT]: new Date(expiresAtMs).toISOString() };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'default', name, annotations, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
  };
}
