import type { Observable } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { ListWatchScope } from '../client/http-list-watcher.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ResourceType } from '../api/resource.js';
import { listWatch } from './list-watch.js';
import type { ListWatchOptions } from './list-watch-options.js';
import type { ReflectorEvent } from './reflector-event.js';

/**
 * `listWatch` over HTTP for a resource of `client`, in one namespace (or all) with selectors:
 *
 * ```ts ignore (internal: listWatchResource is not public)
 * listWatchResource(KubeClient.fromDefault(), resources.configMaps, { namespace: 'default' })
 * ```
 */
export function listWatchResource<T extends KubeObject = KubeObject>(
  client: KubeClient,
  resource: ResourceType<T>,
  scope: ListWatchScope = {},
  options: ListWatchOptions = {},
): Observable<ReflectorEvent<T>> {
  return listWatch(client.listWatcher<T>(resource, scope), options);
}
