import type { KubeObject } from '../api/kube-object.js';
import { WebhookReviewError } from './webhook-errors.js';

/** The AdmissionReview versions the server answers (the response uses the request's). */
export type AdmissionReviewVersion = 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';
export const ADMISSION_REVIEW_VERSIONS: readonly AdmissionReviewVersion[] = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

/** The operation under review. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
const OPERATIONS: readonly AdmissionOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** Who asked (the request's `userInfo`). */
export interface AdmissionUserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A group/version/kind as the review names it. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A group/version/resource as the review names it. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * One admission request, typed: what a handler receives. `object` is the object as it would be
 * stored (absent on DELETE), `oldObject` the stored one (UPDATE and DELETE). `dryRun` is true when
 * the API server will not persist the result: a handler must then have no side effects.
 */
export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  /** The review version the server called with; the answer uses the same. */
  readonly reviewVersion: AdmissionReviewVersion;
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource?: string;
  readonly requestKind?: GroupVersionKind;
  readonly requestResource?: GroupVersionResource;
  readonly requestSubResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  readonly object: T | undefined;
  readonly oldObject: T | undefined;
  readonly dryRun: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions of the request, as sent. */
  readonly options: Readonly<Record<string, unknown>> | undefined;
}

/** What the server writes back in `response` (before its envelope). */
export interface AdmissionResponseBody {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code: number; readonly message: string; readonly reason?: string };
  readonly patch?: string;
  readonly patchType?: 'JSONPatch';
  readonly warnings?: readonly string[];
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

type JsonRecord = Record<string, unknown>;

function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The review version and `request.uid` of a body, as far as they can be read (for answering a bad review). */
export function reviewEnvelope(body: unknown): { version: AdmissionReviewVersion; uid: string } {
  const version = isRecord(body) && ADMISSION_REVIEW_VERSIONS.includes(body.apiVersion as AdmissionReviewVersion) ? (body.apiVersion as AdmissionReviewVersion) : 'admission.k8s.io/v1';
  const request = isRecord(body) ? body.request : undefined;
  const uid = isRecord(request) && typeof request.uid === 'string' ? request.uid : '';
  return { version, uid };
}

/**
 * Reads an AdmissionReview (v1 or v1beta1) into an {@link AdmissionRequest}; throws
 * {@link WebhookReviewError} naming the field when it is not one.
 */
export function decodeAdmissionReview<T extends KubeObject>(path: string, body: unknown): AdmissionRequest<T> {
  const bad = (field: string | undefined, reason: string): WebhookReviewError => new WebhookReviewError(path, field, reason);
  if (!isRecord(body)) throw bad(undefined, 'the body is not a JSON object');
  if (body.kind !== 'AdmissionReview') throw bad('kind', `expected AdmissionReview, got ${JSON.stringify(body.kind)}`);
  const version = body.apiVersion;
  if (!ADMISSION_REVIEW_VERSIONS.includes(version as AdmissionReviewVersion)) {
    throw bad('apiVersion', `expected one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}, got ${JSON.stringify(version)}`);
  }
  const r = body.request;
  if (!isRecord(r)) throw bad('request', 'missing');
  if (typeof r.uid !== 'string' || r.uid === '') throw bad('request.uid', 'missing');
  if (!OPERATIONS.includes(r.operation as AdmissionOperation)) throw bad('request.operation', `expected one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(r.operation)}`);
  const gvk = (field: string, v: unknown): GroupVersionKind => {
    if (!isRecord(v) || typeof v.version !== 'string' || typeof v.kind !== 'string') throw bad(field, 'expected {group, version, kind}');
    return { group: typeof v.group === 'string' ? v.group : '', version: v.version, kind: v.kind };
  };
  const gvr = (field: string, v: unknown): GroupVersionResource => {
    if (!isRecord(v) || typeof v.version !== 'string' || typeof v.resource !== 'string') throw bad(field, 'expected {group, version, resource}');
    return { group: typeof v.group === 'string' ? v.group : '', version: v.version, resource: v.resource };
  };
  const object = (field: string, v: unknown): T | undefined => {
    if (v === undefined || v === null) return undefined;
    if (!isRecord(v)) throw bad(field, 'expected an object');
    return v as T;
  };
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const userInfo = isRecord(r.userInfo) ? (r.userInfo as AdmissionUserInfo) : {};
  return {
    reviewVersion: version as AdmissionReviewVersion,
    uid: r.uid,
    kind: gvk('request.kind', r.kind),
    resource: gvr('request.resource', r.resource),
    ...optional('subResource', text(r.subResource)),
    ...optional('requestKind', r.requestKind === undefined ? undefined : gvk('request.requestKind', r.requestKind)),
    ...optional('requestResource', r.requestResource === undefined ? undefined : gvr('request.requestResource', r.requestResource)),
    ...optional('requestSubResource', text(r.requestSubResource)),
    ...optional('name', text(r.name)),
    ...optional('namespace', text(r.namespace)),
    operation: r.operation as AdmissionOperation,
    userInfo,
    object: object('request.object', r.object),
    oldObject: object('request.oldObject', r.oldObject),
    dryRun: r.dryRun === true,
    options: isRecord(r.options) ? r.options : undefined,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The AdmissionReview the server answers with, in the request's version. */
export function encodeAdmissionReview(version: AdmissionReviewVersion, response: AdmissionResponseBody): JsonRecord {
  return { apiVersion: version, kind: 'AdmissionReview', response };
}

/** `namespace/name` (or `name`) of the object under review, for messages. */
export function reviewedObject(req: Pick<AdmissionRequest, 'name' | 'namespace' | 'object' | 'oldObject'>): string | undefined {
  const name = req.name ?? req.object?.metadata?.name ?? req.oldObject?.metadata?.name ?? req.object?.metadata?.generateName;
  if (name === undefined) return undefined;
  return req.namespace === undefined ? name : `${req.namespace}/${name}`;
}
