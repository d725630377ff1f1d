import { enablePatches, Immer } from 'immer';
import type { SchedulerLike } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { jsonDiff, type Json } from '../client/draft-patch.js';
import type { Logger } from '../logging/logger.js';
import { decodeAdmissionReview, encodeAdmissionReview, reviewedObject, reviewEnvelope, type AdmissionRequest, type AdmissionResponseBody } from './admission-review.js';
import { toVerdict, type AdmissionVerdict } from './admission-verdict.js';
import type { AdmissionContext, AdmissionWebhook } from './admission-webhook.js';
import { withDeadline } from './handler-deadline.js';
import { WebhookHandlerError, WebhookHandlerTimeoutError, WebhookReviewError } from './webhook-errors.js';

enablePatches();
/** Drafts whose results stay unfrozen: they are the request's own objects. */
const immer = new Immer({ autoFreeze: false });

/** What reviewing needs from the server. */
export interface ReviewEnvironment {
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** Aborts when the client went away or the server stops. */
  readonly signal?: AbortSignal;
}

/** The answer to one admission review. */
export interface AdmissionOutcome {
  /** The AdmissionReview to send back (HTTP 200). */
  readonly review: Readonly<Record<string, unknown>>;
  readonly allowed: boolean;
  /** Why it was denied by rxkube rather than by the handler (bad review, throw, timeout), if so. */
  readonly error?: Error;
}

/**
 * Answers one AdmissionReview (v1 or v1beta1, answered in the same version) with `webhook`:
 * decodes it, runs the handler under its deadline, and encodes the verdict (and, for a mutating
 * webhook, the JSON patch). Never rejects: a bad review is denied with code 400, a handler that
 * throws with 500, one that times out with 504, each with a message naming the webhook, the
 * object and the cause.
 */
export async function reviewAdmission(webhook: AdmissionWebhook, body: unknown, env: ReviewEnvironment): Promise<AdmissionOutcome> {
  let request: AdmissionRequest;
  try {
    request = decodeAdmissionReview(webhook.path, body);
  } catch (err) {
    const { version, uid } = reviewEnvelope(body);
    const error = err instanceof WebhookReviewError ? err : new WebhookReviewError(webhook.path, undefined, String(err), { cause: err });
    return { review: encodeAdmissionReview(version, denial(uid, 400, 'BadRequest', error.message)), allowed: false, error };
  }
  const object = reviewedObject(request);
  const logger = env.logger.child({ webhook: webhook.path, ...(object === undefined ? {} : { object }) });
  const answer = (response: AdmissionResponseBody, error?: Error): AdmissionOutcome => ({
    review: encodeAdmissionReview(request.reviewVersion, response),
    allowed: response.allowed,
    ...(error === undefined ? {} : { error }),
  });
  try {
    const result = await withDeadline(
      (signal) => runHandler(webhook, request, context(signal, request.dryRun, logger)),
      webhook.timeoutMs,
      env.scheduler,
      () => new WebhookHandlerTimeoutError(webhook.path, webhook.timeoutMs),
      env.signal,
    );
    const verdict = toVerdict(result.verdict);
    if (typeof verdict === 'string') {
      const error = new WebhookHandlerError(webhook.path, object, new Error(verdict));
      return answer(denial(request.uid, 500, 'InternalError', error.message), error);
    }
    return answer(response(request.uid, verdict, verdict.allowed ? result.patch : undefined));
  } catch (err) {
    if (err instanceof WebhookHandlerTimeoutError) {
      logger.warn('admission handler timed out', { timeoutMs: webhook.timeoutMs });
      return answer(denial(request.uid, 504, 'Timeout', `${err.message}${object === undefined ? '' : ` (${object})`}`), err);
    }
    const error = new WebhookHandlerError(webhook.path, object, err);
    logger.error('admission handler failed', { err });
    return answer(denial(request.uid, 500, 'InternalError', error.message), error);
  }
}

function context(signal: AbortSignal, dryRun: boolean, logger: Logger): AdmissionContext {
  return {
    signal,
    dryRun,
    logger,
    sideEffect: <R>(effect: () => R): R | undefined => (dryRun ? undefined : effect()),
  };
}

/** Runs the handler: a validating one as is, a mutating one on a draft of the object, diffing the result. */
async function runHandler(webhook: AdmissionWebhook, request: AdmissionRequest, ctx: AdmissionContext): Promise<{ verdict: unknown; patch: string | undefined }> {
  if (webhook.type === 'validating') return { verdict: await webhook.validate(request, ctx), patch: undefined };
  const original = request.object;
  if (original === undefined) return { verdict: undefined, patch: undefined };
  // The handler sees its own copy: the request keeps the object as sent, to diff against.
  const draft = immer.createDraft(structuredClone(original));
  const verdict = await webhook.mutate(draft, { ...request, object: original }, ctx);
  const result = immer.finishDraft(draft) as KubeObject;
  const operations = jsonDiff(toJson(original), toJson(result));
  return { verdict, patch: operations.length === 0 ? undefined : Buffer.from(JSON.stringify(operations)).toString('base64') };
}

function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value) ?? 'null') as Json;
}

function response(uid: string, verdict: AdmissionVerdict, patch: string | undefined): AdmissionResponseBody {
  const warnings = verdict.warnings === undefined || verdict.warnings.length === 0 ? {} : { warnings: verdict.warnings };
  if (!verdict.allowed) {
    return { ...denial(uid, verdict.code ?? 403, verdict.reason ?? 'Forbidden', verdict.message), ...warnings };
  }
  return { uid, allowed: true, ...(patch === undefined ? {} : { patch, patchType: 'JSONPatch' as const }), ...warnings };
}

function denial(uid: string, code: number, reason: string, message: string): AdmissionResponseBody {
  return { uid, allowed: false, status: { code, reason, message } };
}
