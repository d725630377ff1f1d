import type { CachedEntry, KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { Request } from '../workqueue/request.js';
import type { ControllerSource } from './controller-source.js';
import type { WatchSpec } from './controller-options.js';

/**
 * A `watches` entry typed by its source, for entries built outside `controller({ … })` (a list
 * assembled in a function, a shared helper): `map` and the options' `filter` and `predicates` get
 * the source's object type, as they do for an entry written inline.
 *
 * @example
 * ```ts
 * const informers = new InformerFactory(KubeClient.fromDefault());
 * const mirrored = watch(informerSource(informers.configMaps()), (cm) => (cm.data?.['mirror'] === 'yes' ? [cm.metadata.name] : []));
 * ```
 */
export function watch<U extends KubeObject>(
  source: ControllerSource<U> | ResourceType<U>,
  map: (object: CachedEntry<U>) => readonly (Request | string)[],
  options: Omit<WatchSpec<U>, 'source' | 'map'> = {},
): WatchSpec<U> {
  return { ...options, source, map };
}
