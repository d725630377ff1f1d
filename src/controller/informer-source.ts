import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { ListenerOptions } from '../informer/informer-listener.js';
import type { SharedInformer } from '../informer/shared-informer-interface.js';
import { ControllerBuildError } from './controller-errors.js';
import type { ControllerSource } from './controller-source.js';

/**
 * Adapts a shared informer to a {@link ControllerSource}: each registration is an informer
 * listener (`informer.listen(options)`), whose `synced$` is true once the informer synced and the
 * listener was handed every initial add (SI-11, what CR-5 waits for).
 *
 * The source's resource type (owner matching, request scope, `ctx.objects()`) is the informer's
 * own (`informer.resource`, set by `InformerFactory` and `{ client, resource }` sources), or the
 * one given; owner mapping (`owns`) needs its `namespaced`.
 *
 * ```ts
 * const pods = informerSource(informers.pods());                      // ControllerSource<K8s.Pod>
 * const plain = informerSource(sharedInformer(events$), resources.configMaps);
 * ```
 * @throws ControllerBuildError when neither the informer nor the call names the resource type.
 */
export function informerSource<T extends KubeObject>(informer: SharedInformer<T>, options?: ListenerOptions<T>): ControllerSource<T>;
export function informerSource<T extends KubeObject>(
  informer: SharedInformer<T>,
  resource: ResourceType<T>,
  options?: ListenerOptions<T>,
): ControllerSource<T>;
export function informerSource<T extends KubeObject>(
  informer: SharedInformer<T>,
  resourceOrOptions?: ResourceType<T> | ListenerOptions<T>,
  maybeOptions: ListenerOptions<T> = {},
): ControllerSource<T> {
  const given = isResourceType(resourceOrOptions) ? resourceOrOptions : undefined;
  const options = given === undefined ? ((resourceOrOptions as ListenerOptions<T> | undefined) ?? {}) : maybeOptions;
  const resource = given ?? informer.resource;
  if (resource === undefined) {
    throw new ControllerBuildError(`informerSource: informer ${informer.name} does not know its resource type; pass it as the second argument`);
  }
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

function isResourceType<T extends KubeObject>(x: ResourceType<T> | ListenerOptions<T> | undefined): x is ResourceType<T> {
  return x !== null && typeof x === 'object' && typeof (x as ResourceType<T>).apiVersion === 'string' && typeof (x as ResourceType<T>).kind === 'string';
}
