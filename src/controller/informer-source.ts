import type { KubeObject } from '../api/kube-object.js';
import type { ListenerOptions } from '../informer/informer-listener.js';
import type { SharedInformer } from '../informer/shared-informer.js';
import type { ControllerSource } from './controller-source.js';
import type { OwnerType } from './event-requests.js';

/**
 * Adapts a shared informer to a {@link ControllerSource}: each registration is an informer
 * listener (`informer.listen(options)`), whose `synced$` is true once the informer synced and the
 * listener was handed every initial add (SI-11, what CR-5 waits for). `resource` names the type
 * (owner matching, request scope, `ctx.objects()`); pass a full `Resource` to skip discovery.
 */
export function informerSource<T extends KubeObject>(
  informer: SharedInformer<T>,
  resource: OwnerType,
  options: ListenerOptions<T> = {},
): ControllerSource<T> {
  return {
    resource,
    name: informer.name,
    store: informer.store,
    register: () => {
      const listener = informer.listen(options);
      return { events$: listener.events$, synced$: listener.synced$ };
    },
  };
}
