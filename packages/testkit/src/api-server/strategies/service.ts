/** Services: the requested type is checked before a cluster IP or node port is allocated; an update keeps the allocated IP. */
import { dflt, objectList, specOf, type Defaulter } from '../admission/defaults.js';
import { arr, DNS1123_LABEL, DNS1123_LABEL_MSG, labels, o, port, PROTOCOLS, show, str } from '../admission/field-rules.js';
import { causes, validateObjectMeta, type Validator } from '../admission/validation.js';
import { invalid } from '../status-error.js';
import { strategy } from './default.js';
import type { Obj } from './strategy.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

/** `ValidateService` (and `ValidateServiceUpdate`: allocated cluster IPs stay). */
const validateService: Validator = (c, svc, old) => {
  const s = o(svc['spec']) ?? {};
  const type = s['type'];
  if (type !== undefined && !SERVICE_TYPES.includes(str(type))) c.unsupported('spec.type', type, SERVICE_TYPES);
  const ports = arr(s['ports']);
  const headless = s['clusterIP'] === 'None';
  if (ports.length === 0 && type !== 'ExternalName' && !headless) c.required('spec.ports');
  const names = new Set<string>();
  ports.forEach((x, i) => {
    const p = o(x) ?? {};
    const name = str(p['name']);
    if (ports.length > 1 && name === '') c.required(`spec.ports[${i}].name`);
    else if (name !== '' && names.has(name)) c.duplicate(`spec.ports[${i}].name`, name);
    else if (name !== '' && !DNS1123_LABEL.test(name)) c.invalidValue(`spec.ports[${i}].name`, name, DNS1123_LABEL_MSG);
    names.add(name);
    port(c, `spec.ports[${i}].port`, p['port']);
    if (p['protocol'] !== undefined && !PROTOCOLS.includes(str(p['protocol']))) c.unsupported(`spec.ports[${i}].protocol`, p['protocol'], PROTOCOLS);
    const np = p['nodePort'];
    if (np !== undefined && np !== 0 && (type === 'ClusterIP' || type === undefined)) c.forbidden(`spec.ports[${i}].nodePort`, 'may not be used when `type` is \'ClusterIP\'');
    const tp = p['targetPort'];
    if (typeof tp === 'number' && (tp < 1 || tp > 65535)) c.invalidValue(`spec.ports[${i}].targetPort`, tp, 'must be between 1 and 65535, inclusive');
  });
  if (type === 'ExternalName' && str(s['externalName']) === '') c.required('spec.externalName');
  const sa = s['sessionAffinity'];
  if (sa !== undefined && sa !== 'None' && sa !== 'ClientIP') c.unsupported('spec.sessionAffinity', sa, ['ClientIP', 'None']);
  labels(c, 'spec.selector', s['selector']);
  if (old !== undefined) {
    const os = o(old['spec']) ?? {};
    // 1.20 checks clusterIPs (clusterIP is its first entry).
    const oldIps = arr(os['clusterIPs']).length > 0 ? arr(os['clusterIPs']) : os['clusterIP'] !== undefined ? [os['clusterIP']] : [];
    const newIps = arr(s['clusterIPs']).length > 0 ? arr(s['clusterIPs']) : s['clusterIP'] !== undefined ? [s['clusterIP']] : [];
    if (type !== 'ExternalName') {
      oldIps.forEach((ip, i) => {
        if (ip !== '' && newIps[i] !== ip) c.list.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${show(newIps[i] ?? '')}: may not change once set`, field: `spec.clusterIPs[${i}]` });
      });
    }
  }
};

/** A service: type, affinity, ports, and on create its cluster IP and node ports. */
export const defaultService: Defaulter = (o, create, alloc) => {
  const s = specOf(o);
  dflt(s, 'type', 'ClusterIP');
  dflt(s, 'sessionAffinity', 'None');
  const type = s['type'];
  for (const p of objectList(s['ports'])) {
    dflt(p, 'protocol', 'TCP');
    if (p['targetPort'] === undefined || p['targetPort'] === 0 || p['targetPort'] === '') p['targetPort'] = p['port'];
    if (create && (type === 'NodePort' || type === 'LoadBalancer') && (p['nodePort'] === undefined || p['nodePort'] === 0)) p['nodePort'] = alloc.nodePort();
  }
  if (type === 'NodePort' || type === 'LoadBalancer') dflt(s, 'externalTrafficPolicy', 'Cluster');
  if (create && type !== 'ExternalName') {
    if (s['clusterIP'] === undefined || s['clusterIP'] === '') s['clusterIP'] = alloc.clusterIP();
    if (s['clusterIPs'] === undefined) s['clusterIPs'] = [s['clusterIP']];
  }
  if (create && o['status'] === undefined) o['status'] = { loadBalancer: {} };
};

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
    validateService(c, o, undefined);
    if (c.list.some((x) => x.field.startsWith('spec.type'))) {
      throw invalid(r.kind, r.group, ((o['metadata'] as Obj | undefined)?.['name'] as string | undefined) ?? '', c.list);
    }
  },
  defaults: defaultService,
  validate: validateService,
});
