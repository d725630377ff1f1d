/**
 * AdmissionReview requests and responses (`admission.k8s.io/v1` and `v1beta1`), as kube-apiserver
 * 1.20 writes and checks them (`request/admissionreview.go`).
 */
import { randomUUID } from 'node:crypto';
import type { UserInfo } from '../../access-review.js';
import type { AdmissionWebhook } from './webhook-config.js';
import type { AdmissionAttributes, WebhookInvocation } from './webhook-match.js';
import { WebhookCallFailure } from './webhook-client.js';

type Obj = Record<string, unknown>;

/** A request to one webhook: the review to send and how to read the answer. */
export interface ReviewRequest {
  readonly uid: string;
  readonly version: 'v1' | 'v1beta1';
  readonly body: Obj;
}

/** What a webhook answered, checked. */
export interface ReviewResponse {
  readonly allowed: boolean;
  /** The decoded JSON patch (mutating webhooks only). */
  readonly patch: unknown;
  readonly patchType: string;
  readonly result: Obj | undefined;
  readonly warnings: readonly string[];
}

/** The operation's options object kube-apiserver puts into the review. */
function optionsOf(a: AdmissionAttributes, fieldManager: string | undefined): Obj {
  const kind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  return {
    kind,
    apiVersion: 'meta.k8s.io/v1',
    ...(a.dryRun ? { dryRun: ['All'] } : {}),
    ...(fieldManager !== undefined && a.operation !== 'DELETE' ? { fieldManager } : {}),
  };
}

/** `obj` as the webhook wants it: in the version it matched (`matchPolicy: Equivalent`). */
export function inVersion(obj: Obj | undefined, group: string, version: string): Obj | undefined {
  if (obj === undefined) return undefined;
  return { ...obj, apiVersion: group === '' ? version : `${group}/${version}` };
}

/**
 * Builds the review for `invocation`, in the first AdmissionReview version the webhook accepts;
 * throws {@link WebhookCallFailure} when it accepts neither v1 nor v1beta1.
 */
export function reviewRequest(invocation: WebhookInvocation, a: AdmissionAttributes, user: UserInfo, fieldManager: string | undefined): ReviewRequest {
  const version = invocation.webhook.admissionReviewVersions.find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
  if (version === undefined) throw new WebhookCallFailure('webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  const uid = randomUUID();
  const r = invocation.resource;
  const requested = a.resource;
  const request: Obj = {
    uid,
    kind: { group: r.group, version: r.version, kind: a.kind },
    resource: { group: r.group, version: r.version, resource: r.resource },
    ...(a.subresource !== '' ? { subResource: a.subresource } : {}),
    requestKind: { group: requested.group, version: requested.version, kind: a.kind },
    requestResource: { group: requested.group, version: requested.version, resource: requested.resource },
    ...(a.subresource !== '' ? { requestSubResource: a.subresource } : {}),
    ...(a.name !== '' ? { name: a.name } : {}),
    ...(a.namespace !== '' ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: { username: user.username, ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}) },
    object: inVersion(a.object, r.group, r.version) ?? null,
    oldObject: inVersion(a.oldObject, r.group, r.version) ?? null,
    dryRun: a.dryRun,
    options: optionsOf(a, fieldManager),
  };
  return { uid, version, body: { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request } };
}

function gvkText(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const group = slash < 0 ? '' : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

function decodePatch(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw === '') return undefined;
  return JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown;
}

/**
 * Checks a webhook's answer as kube-apiserver's `VerifyAdmissionResponse`; throws
 * {@link WebhookCallFailure} with its reasons. A patch that does not decode is thrown as is (an internal error).
 */
export function verifyResponse(sent: ReviewRequest, mutating: boolean, answer: unknown): ReviewResponse {
  const review = (typeof answer === 'object' && answer !== null ? answer : {}) as Obj;
  const res = review['response'];
  if (typeof res !== 'object' || res === null) throw new WebhookCallFailure('webhook response was absent');
  const r = res as Obj;
  const warnings = Array.isArray(r['warnings']) ? r['warnings'].filter((w): w is string => typeof w === 'string') : [];
  const result = typeof r['status'] === 'object' && r['status'] !== null ? (r['status'] as Obj) : undefined;
  const allowed = r['allowed'] === true;
  const hasPatch = typeof r['patch'] === 'string' && r['patch'] !== '';
  if (sent.version === 'v1') {
    if (r['uid'] !== sent.uid) throw new WebhookCallFailure(`expected response.uid="${sent.uid}", got "${typeof r['uid'] === 'string' ? r['uid'] : ''}"`);
    if (review['apiVersion'] !== 'admission.k8s.io/v1' || review['kind'] !== 'AdmissionReview') {
      throw new WebhookCallFailure(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvkText(review['apiVersion'], review['kind'])}`);
    }
    const patchType = r['patchType'];
    if (mutating) {
      if (hasPatch && patchType === undefined) throw new WebhookCallFailure('webhook returned response.patch but not response.patchType');
      if (!hasPatch && patchType !== undefined && patchType !== null) throw new WebhookCallFailure('webhook returned response.patchType but not response.patch');
      if (patchType === '') throw new WebhookCallFailure('webhook returned invalid response.patchType of ""');
    } else {
      if (hasPatch) throw new WebhookCallFailure('validating webhook may not return response.patch');
      if (patchType !== undefined && patchType !== null) throw new WebhookCallFailure('validating webhook may not return response.patchType');
    }
    return { allowed, patch: mutating ? decodePatch(r['patch']) : undefined, patchType: typeof patchType === 'string' ? patchType : '', result, warnings };
  }
  // v1beta1: uid and kind were never checked; a patch is a JSON patch.
  return { allowed, patch: mutating ? decodePatch(r['patch']) : undefined, patchType: mutating && hasPatch ? 'JSONPatch' : '', result, warnings };
}

/** The Status a denial is answered with (kube-apiserver's `ToStatusErr`). */
export function denialStatus(webhook: AdmissionWebhook, result: Obj | undefined): Obj & { code: number } {
  const r = result ?? {};
  const deniedBy = `admission webhook "${webhook.name}" denied the request`;
  const code = typeof r['code'] === 'number' && r['code'] >= 400 ? r['code'] : 400;
  const status = r['status'] === '' || r['status'] === 'Success' || r['status'] === undefined ? 'Failure' : r['status'];
  const reason = typeof r['reason'] === 'string' ? r['reason'] : '';
  const message = typeof r['message'] === 'string' && r['message'] !== '' ? `${deniedBy}: ${r['message']}` : reason !== '' ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = typeof r['details'] === 'object' && r['details'] !== null ? r['details'] : undefined;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: typeof r['metadata'] === 'object' && r['metadata'] !== null ? r['metadata'] : {},
    status,
    message,
    ...(reason !== '' ? { reason } : {}),
    ...(details !== undefined ? { details } : {}),
    code,
  };
}
