import type { KubeObject } from '../api/kube-object.js';
import type { ConversionWebhook } from './conversion-webhook.js';
import { WebhookHandlerError, WebhookReviewError } from './webhook-errors.js';

/** The ConversionReview versions the server answers (the response uses the request's). */
export type ConversionReviewVersion = 'apiextensions.k8s.io/v1' | 'apiextensions.k8s.io/v1beta1';
const VERSIONS: readonly ConversionReviewVersion[] = ['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1'];

/** At most this many objects per review (the API server sends one list page's worth at most). */
export const MAX_CONVERSION_OBJECTS = 100_000;

/** The answer to one conversion review. */
export interface ConversionOutcome {
  readonly review: Readonly<Record<string, unknown>>;
  readonly succeeded: boolean;
  readonly error?: Error;
}

type JsonRecord = Record<string, unknown>;
const isRecord = (v: unknown): v is JsonRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Answers one ConversionReview with `webhook`: every object converted to `desiredAPIVersion`, in
 * order, with `result.status: Success`; or, when the review is malformed or any object fails,
 * no objects and `result.status: Failure` with a message naming the webhook, the object and the
 * cause (the API server then fails the read or write). Never throws.
 */
export function reviewConversion(webhook: ConversionWebhook, body: unknown): ConversionOutcome {
  const version = isRecord(body) && VERSIONS.includes(body.apiVersion as ConversionReviewVersion) ? (body.apiVersion as ConversionReviewVersion) : 'apiextensions.k8s.io/v1';
  const request = isRecord(body) ? body.request : undefined;
  const uid = isRecord(request) && typeof request.uid === 'string' ? request.uid : '';
  const failure = (error: Error): ConversionOutcome => ({
    review: { apiVersion: version, kind: 'ConversionReview', response: { uid, convertedObjects: [], result: { status: 'Failure', message: error.message } } },
    succeeded: false,
    error,
  });
  const bad = (field: string | undefined, reason: string): ConversionOutcome => failure(new WebhookReviewError(webhook.path, field, reason));
  if (!isRecord(body)) return bad(undefined, 'the body is not a JSON object');
  if (body.kind !== 'ConversionReview') return bad('kind', `expected ConversionReview, got ${JSON.stringify(body.kind)}`);
  if (!VERSIONS.includes(body.apiVersion as ConversionReviewVersion)) return bad('apiVersion', `expected one of ${VERSIONS.join(', ')}, got ${JSON.stringify(body.apiVersion)}`);
  if (!isRecord(request)) return bad('request', 'missing');
  if (uid === '') return bad('request.uid', 'missing');
  const desired = request.desiredAPIVersion;
  if (typeof desired !== 'string' || desired === '') return bad('request.desiredAPIVersion', 'missing');
  const objects = request.objects;
  if (!Array.isArray(objects)) return bad('request.objects', 'expected a list');
  if (objects.length > MAX_CONVERSION_OBJECTS) return bad('request.objects', `more than ${MAX_CONVERSION_OBJECTS} objects`);
  const converted: KubeObject[] = [];
  for (const [i, o] of objects.entries()) {
    if (!isRecord(o) || typeof o.apiVersion !== 'string') return bad(`request.objects[${i}]`, 'expected an object with apiVersion');
    const object = o as KubeObject;
    try {
      converted.push(webhook.convert(object, desired));
    } catch (err) {
      const name = object.metadata?.name;
      const ns = object.metadata?.namespace;
      const id = `${object.apiVersion} ${name === undefined ? `#${i}` : ns === undefined ? name : `${ns}/${name}`} to ${desired}`;
      return failure(new WebhookHandlerError(webhook.path, id, err));
    }
  }
  return {
    review: { apiVersion: version, kind: 'ConversionReview', response: { uid, convertedObjects: converted, result: { status: 'Success' } } },
    succeeded: true,
  };
}
