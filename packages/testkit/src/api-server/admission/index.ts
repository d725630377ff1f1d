/**
 * Admission of built-in objects on create and update: defaulting (defaults.ts), then validation
 * (validation.ts); an invalid object is a 422 Invalid Status with kube-apiserver's causes.
 */
import type { UnstructuredObject } from 'rxkube';
import type { ObjectStore } from '../object-store.js';
import { copyJson, copyKnownFields, definitionFor } from '../openapi-schemas.js';
import type { ServedResource } from '../resource-registry.js';
import { failure, invalid, StatusError } from '../status-error.js';
import type { IpAllocator, ResourceStrategy } from '../strategies/strategy.js';
import { causes, validateObjectMeta } from './validation.js';

type Obj = Record<string, unknown>;

/** The service CIDR cluster IPs come from (kube-apiserver's `--service-cluster-ip-range`). */
export const SERVICE_CIDR = '10.96.0.0/12';

/** Allocates nothing (the defaults webhooks see): empty values, removed after defaulting. */
const NO_ALLOCATION: IpAllocator = { clusterIP: () => '', nodePort: () => 0 };

/** Allocates cluster IPs and node ports not used by a stored service. */
class StoreAllocator implements IpAllocator {
  private nextIp = 10;
  private nextPort = 30000;
  constructor(private readonly store: ObjectStore) {}

  private used(): { ips: Set<string>; ports: Set<number> } {
    const ips = new Set<string>();
    const ports = new Set<number>();
    for (const e of this.store.snapshot('/services')) {
      const spec = (e.object as Obj)['spec'] as Obj | undefined;
      if (typeof spec?.['clusterIP'] === 'string') ips.add(spec['clusterIP']);
      for (const p of Array.isArray(spec?.['ports']) ? (spec['ports'] as Obj[]) : []) if (typeof p['nodePort'] === 'number') ports.add(p['nodePort']);
    }
    return { ips, ports };
  }

  clusterIP(): string {
    const { ips } = this.used();
    // 10.96.0.0/12: 2^20 addresses; .0.1 is the `kubernetes` service's.
    for (let i = 0; i < 1 << 20; i++) {
      const n = 10 + ((this.nextIp - 10 + i) % ((1 << 20) - 12));
      const ip = `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
      if (!ips.has(ip)) {
        this.nextIp = n + 1;
        return ip;
      }
    }
    // kube-apiserver's answer when the service range is used up.
    throw new StatusError(failure(500, 'InternalError', 'Internal error occurred: failed to allocate a serviceIP: range is full'));
  }

  nodePort(): number {
    const { ports } = this.used();
    for (let i = 0; i <= 2767; i++) {
      const p = 30000 + ((this.nextPort - 30000 + i) % 2768);
      if (!ports.has(p)) {
        this.nextPort = p + 1;
        return p;
      }
    }
    throw new StatusError(failure(500, 'InternalError', 'Internal error occurred: failed to allocate a nodePort: range is full'));
  }
}

/**
 * A copy of `o` without what the kind's 1.20 schema does not know (kube-apiserver's decoder
 * ignores unknown fields); admission works on it, never on the object it is given.
 */
function copyKnown(r: ServedResource, o: UnstructuredObject, shareFieldsV1 = false, asStored = false): Obj {
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const def = definitionFor(r.group, apiVersion.slice(apiVersion.indexOf('/') + 1), r.kind);
  return (def !== undefined ? copyKnownFields(o, def, shareFieldsV1, asStored) : copyJson(o)) as Obj;
}

/** Defaulting and validation of the built-in kinds, as their strategies define them (custom resources pass through). */
export class BuiltinAdmission {
  private readonly alloc: IpAllocator;
  constructor(store: ObjectStore) {
    this.alloc = new StoreAllocator(store);
  }

  private check(r: ServedResource, strategy: ResourceStrategy, o: Obj, old: Obj | undefined): void {
    const c = causes();
    validateObjectMeta(c, o);
    strategy.validate(c, o, old);
    const name = ((o['metadata'] as Obj | undefined)?.['name'] as string | undefined) ?? '';
    if (c.list.length > 0) throw invalid(r.kind, r.group, name, c.list);
  }

  /**
   * Unknown fields dropped and defaults applied (on create also what the mutating admission
   * plugins before the webhooks add: default tolerations, priority, protection finalizers),
   * nothing allocated and nothing validated: the object admission webhooks see. kube-apiserver
   * defaults on decoding; allocation, the initial status and validation come after mutating admission.
   */
  defaultsOnly(r: ServedResource, strategy: ResourceStrategy, obj: UnstructuredObject, old: UnstructuredObject | undefined): UnstructuredObject {
    if (r.custom) return obj;
    const o = copyKnown(r, obj);
    const create = old === undefined;
    const status = o['status'];
    strategy.beforeDefaults(r, o, old as Obj | undefined);
    strategy.defaults(o, create, NO_ALLOCATION);
    if (create) {
      const spec = o['spec'] as Obj | undefined;
      if (spec?.['clusterIP'] === '') delete spec['clusterIP'];
      if (Array.isArray(spec?.['clusterIPs']) && (spec['clusterIPs'] as unknown[]).every((ip) => ip === '')) delete spec['clusterIPs'];
      for (const p of Array.isArray(spec?.['ports']) ? (spec['ports'] as Obj[]) : []) if (p['nodePort'] === 0) delete p['nodePort'];
      // A status the create strategy sets (a pod's, a namespace's phase) comes after admission; the decoded object has the one sent, or an empty one.
      const probe: Obj = {};
      strategy.prepareForCreate(probe, false);
      if (probe['status'] !== undefined) o['status'] = status ?? {};
    }
    return o as UnstructuredObject;
  }

  /**
   * Unknown fields dropped and the defaults kube-apiserver's decoder sets (`SetDefaults_*`), not
   * what create strategies, allocation and admission plugins add later: the object its field
   * manager compares with the stored one, so a write's manager owns the fields defaulting set (a
   * pod's `dnsPolicy`, a container's `imagePullPolicy`). A copy; FieldsV1 sets shared.
   */
  decodeDefaults(r: ServedResource, strategy: ResourceStrategy, obj: UnstructuredObject): UnstructuredObject {
    if (r.custom) return obj;
    const o = copyKnown(r, obj, true);
    strategy.defaults(o, false, NO_ALLOCATION);
    return o as UnstructuredObject;
  }

  /** On create: unknown fields dropped, defaults, then validation. */
  admitCreate(r: ServedResource, strategy: ResourceStrategy, obj: UnstructuredObject): UnstructuredObject {
    if (r.custom) return obj;
    // (FieldsV1 sets shared: the object goes to the store, where nothing changes them)
    const o = copyKnown(r, obj, true, true);
    strategy.beforeDefaults(r, o, undefined);
    strategy.defaults(o, true, this.alloc);
    this.check(r, strategy, o, undefined);
    return o as UnstructuredObject;
  }

  /** On update (not `/status`): defaults, then validation against the stored object. */
  admitUpdate(r: ServedResource, strategy: ResourceStrategy, obj: UnstructuredObject, old: UnstructuredObject): UnstructuredObject {
    if (r.custom) return obj;
    const o = copyKnown(r, obj, true, true);
    const prev = old as Obj;
    strategy.beforeDefaults(r, o, prev);
    strategy.defaults(o, false, this.alloc);
    this.check(r, strategy, o, prev);
    return o as UnstructuredObject;
  }
}
