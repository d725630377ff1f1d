import type { UnstructuredObject } from 'rxkube';
import { COMMON_FIELDS } from './field-selector.js';
import type { ServedResource } from './resource-registry.js';
import { badRequest, invalid, methodNotAllowed } from './status-error.js';

/** Storage id of SelfSubjectAccessReviews (never stored: a create answers at once). */
export const SSAR_RESOURCE_ID = 'authorization.k8s.io/selfsubjectaccessreviews';

/** Resources the lifecycle additions serve besides the built-in ones (added when missing). */
export function lifecycleResources(): ServedResource[] {
  const base = { shortNames: [], categories: [], custom: false, fields: COMMON_FIELDS } as const;
  return [
    { ...base, group: 'apps', versions: ['v1'], plural: 'statefulsets', singular: 'statefulset', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'], hasStatus: true, hasGeneration: true },
    { ...base, group: '', versions: ['v1'], plural: 'endpoints', singular: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'], hasStatus: false, hasGeneration: false },
    { ...base, group: 'authorization.k8s.io', versions: ['v1'], plural: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview', kind: 'SelfSubjectAccessReview', namespaced: false, hasStatus: false, hasGeneration: false, verbs: ['create'] },
  ];
}

/** What a request asks to do, as in a SubjectAccessReview's spec. */
export interface AccessAttributes {
  readonly resourceAttributes?: {
    readonly namespace?: string;
    readonly verb?: string;
    readonly group?: string;
    readonly version?: string;
    readonly resource?: string;
    readonly subresource?: string;
    readonly name?: string;
  };
  readonly nonResourceAttributes?: { readonly path?: string; readonly verb?: string };
}

/** The authenticated user of a request. */
export interface UserInfo {
  readonly username: string;
  readonly groups: readonly string[];
}

/** Decides a request: allowed, with a reason. */
export type Authorizer = (user: UserInfo, attributes: AccessAttributes) => { readonly allowed: boolean; readonly reason?: string };

/**
 * Answers `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` as kube-apiserver: the
 * review comes back with `status.allowed` for the requesting user (422 when the spec names both
 * or neither of resource and non-resource attributes).
 */
export function selfSubjectAccessReview(method: string, body: unknown, user: UserInfo, authorize: Authorizer): UnstructuredObject {
  if (method !== 'POST') throw methodNotAllowed(method);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the object provided is unrecognized (must be of type SelfSubjectAccessReview)');
  const spec = ((body as { spec?: AccessAttributes }).spec ?? {});
  const both = spec.resourceAttributes !== undefined && spec.nonResourceAttributes !== undefined;
  const neither = spec.resourceAttributes === undefined && spec.nonResourceAttributes === undefined;
  if (both || neither) {
    throw invalid('SelfSubjectAccessReview', 'authorization.k8s.io', '', [{
      reason: 'FieldValueInvalid',
      field: 'spec.resourceAttributes',
      message: `Invalid value: "${both ? 'both' : 'null'}": exactly one of nonResourceAttributes or resourceAttributes must be specified`,
    }]);
  }
  const decision = authorize(user, spec);
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {},
    spec,
    status: { allowed: decision.allowed, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) },
  };
}

/** The authorizer when authorization is off: everything is allowed. */
export const allowAll: Authorizer = () => ({ allowed: true });

/** Reads the fields of one protobuf message: field number → values (bytes for length-delimited, numbers for varints). */
function protoFields(buf: Buffer): Map<number, (Buffer | number)[]> {
  const out = new Map<number, (Buffer | number)[]>();
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = buf[i++];
      if (b === undefined) throw badRequest('truncated protobuf body');
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
  };
  while (i < buf.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    let value: Buffer | number;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = buf.subarray(i, i + len);
      i += len;
    } else throw badRequest(`unsupported protobuf wire type ${wire}`);
    const list = out.get(field) ?? [];
    list.push(value);
    out.set(field, list);
  }
  return out;
}

function protoStrings(buf: Buffer, names: readonly string[]): Record<string, string> {
  const f = protoFields(buf);
  const out: Record<string, string> = {};
  names.forEach((name, idx) => {
    const v = f.get(idx + 1)?.[0];
    if (Buffer.isBuffer(v) && v.length > 0) out[name] = v.toString('utf8');
  });
  return out;
}

/**
 * Decodes a SelfSubjectAccessReview sent as `application/vnd.kubernetes.protobuf` (kubectl
 * `auth can-i` sends it so): the `k8s\0` envelope (runtime.Unknown), then the review's spec.
 */
export function decodeAccessReviewProtobuf(raw: Buffer): { spec: AccessAttributes } {
  if (raw.length < 4 || raw.subarray(0, 4).toString('latin1') !== 'k8s\u0000') throw badRequest('protobuf body without the k8s envelope');
  const unknown = protoFields(raw.subarray(4));
  const inner = unknown.get(2)?.[0];
  if (!Buffer.isBuffer(inner)) throw badRequest('protobuf envelope without a body');
  const review = protoFields(inner);
  const specBuf = review.get(2)?.[0];
  const spec = Buffer.isBuffer(specBuf) ? protoFields(specBuf) : new Map<number, (Buffer | number)[]>();
  const ra = spec.get(1)?.[0];
  const nra = spec.get(2)?.[0];
  return {
    spec: {
      ...(Buffer.isBuffer(ra) ? { resourceAttributes: protoStrings(ra, ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']) } : {}),
      ...(Buffer.isBuffer(nra) ? { nonResourceAttributes: protoStrings(nra, ['path', 'verb']) } : {}),
    },
  };
}
