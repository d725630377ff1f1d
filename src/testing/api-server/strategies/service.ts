/** Services: the requested type is checked before a cluster IP or node port is allocated; an update keeps the allocated IP. */
import { defaultService } from '../admission/defaults.js';
import { causes, validateObjectMeta, validateServiceObject } from '../admission/validation.js';
import { invalid } from '../status-error.js';
import { strategy } from './default.js';
import type { Obj } from './strategy.js';

/** An update without `spec.clusterIP` keeps the allocated one (and its `clusterIPs`). */
function keepClusterIp(o: Obj, old: Obj): void {
  const spec = (o['spec'] ??= {}) as Obj;
  const oldSpec = (old['spec'] ?? {}) as Obj;
  if ((spec['clusterIP'] === undefined || spec['clusterIP'] === '') && oldSpec['clusterIP'] !== undefined) {
    spec['clusterIP'] = oldSpec['clusterIP'];
    if (spec['clusterIPs'] === undefined && oldSpec['clusterIPs'] !== undefined) spec['clusterIPs'] = oldSpec['clusterIPs'];
  }
}

/** The service strategy (core/v1 services). */
export const SERVICE_STRATEGY = strategy({
  beforeDefaults: (r, o, old) => {
    if (old !== undefined) return keepClusterIp(o, old);
    // Validate the requested type and ports before allocating anything.
    const c = causes();
    validateObjectMeta(c, o);
    validateServiceObject(c, o, undefined);
    if (c.list.some((x) => x.field.startsWith('spec.type'))) {
      throw invalid(r.kind, r.group, ((o['metadata'] as Obj | undefined)?.['name'] as string | undefined) ?? '', c.list);
    }
  },
  defaults: defaultService,
  validate: validateServiceObject,
});
