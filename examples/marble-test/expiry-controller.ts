/**
 * The same job as `ttl-controller.ts` (delete ConfigMaps once their `example.com/expires-at`
 * annotation has passed), written the ordinary way: an `async` reconcile that calls the client
 * directly. Nothing is injected for tests: `expiry-controller.test.ts` runs this exact code in
 * virtual time against an in-process API server (`virtualTime` from `rxkube/testing`).
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { controller, resources, type Controller, type InformerFactory, type KubeClient } from 'rxkube';
import { expiry } from './ttl-controller.js';

export interface ExpiryControllerOptions {
  readonly informers: InformerFactory;
  readonly client: KubeClient;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

export function expiryController(options: ExpiryControllerOptions): Controller {
  const scheduler = options.scheduler ?? asyncScheduler;
  return controller({
    name: options.name ?? 'configmap-expiry',
    for: resources.configMaps,
    informers: options.informers,
    client: options.client,
    scheduler,
    reconcile: async (request, ctx) => {
      const expiresAt = expiry(ctx.object);
      if (expiresAt === undefined) return undefined; // gone, or never expires
      const left = expiresAt - scheduler.now();
      if (left > 0) return { requeueAfter: left }; // wake up when it expires
      await ctx.objects().delete(request.name, { signal: ctx.signal });
      ctx.logger.info('deleted expired ConfigMap');
      return undefined;
    },
  });
}
