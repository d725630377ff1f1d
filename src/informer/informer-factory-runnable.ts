import { Observable, Subscription } from 'rxjs';
import type { Permission } from '../api/permission.js';
import type { Runnable, RunnableDeps } from '../api/runnable.js';
import type { KubeClientBase } from '../client/kube-client-base.js';
import type { ResourceType } from '../api/resource.js';
import type { Logger } from '../logging/logger.js';
import { LOGGER_KEY } from '../logging/logger-key.js';
import { INFORMER_MONITOR_KEY, type InformerMonitor } from './informer-monitor.js';
import type { SharedInformer } from './shared-informer-interface.js';

/** One informer of a factory with what it lists: the resource and the namespace (`undefined`: all). */
export interface InformerScope {
  readonly informer: SharedInformer;
  readonly resource: ResourceType;
  readonly namespace: string | undefined;
}

/** What {@link informerFactoryRunnable} needs of an `InformerFactory`. */
export interface FactoryView {
  /** Every informer created so far, with its scope. */
  scopes(): readonly InformerScope[];
  /** The client the informers use, when the factory was made from one. */
  readonly client: KubeClientBase | undefined;
  /** Runs every informer of the factory while subscribed (the set is taken at subscribe time). */
  readonly run$: Observable<never>;
  readonly synced$: Observable<boolean>;
}

/**
 * The factory as a manager cache runnable. Added to a manager it takes the manager's logger and
 * informer monitor (reflector metrics, logged list/watch failures, and the reasons a cache does not
 * sync); its `permissions()` are get/list/watch of every informer's resource in its namespace.
 */
export function informerFactoryRunnable(factory: FactoryView, name: string): Runnable {
  let monitor: InformerMonitor | undefined;
  let logger: Logger | undefined;
  return {
    name,
    synced$: factory.synced$,
    inject(deps: RunnableDeps) {
      monitor = deps.get(INFORMER_MONITOR_KEY);
      logger = deps.get(LOGGER_KEY)?.child({ cache: name });
    },
    permissions(): readonly Permission[] {
      return factory.scopes().map(({ resource, namespace }) => ({
        resource,
        verbs: ['get', 'list', 'watch'],
        namespace: namespace ?? null,
      }));
    },
    start: () =>
      new Observable<never>((subscriber) => {
        const informers = factory.scopes().map((s) => s.informer);
        const subscription = new Subscription();
        logger?.debug('starting informers', { informers: informers.map((i) => i.name) });
        if (monitor !== undefined) {
          subscription.add(monitor.track({ name, informers, ...(factory.client === undefined ? {} : { client: factory.client }) }));
        }
        subscription.add(factory.run$.subscribe(subscriber));
        return subscription;
      }),
  };
}
