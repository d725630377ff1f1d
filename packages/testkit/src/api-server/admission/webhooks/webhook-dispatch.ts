/**
 * Calls the matching webhooks of one request as kube-apiserver 1.20's dispatchers: mutating
 * webhooks one after the other (JSON patches applied, `reinvocationPolicy: IfNeeded` webhooks
 * called once more when a later webhook changed the object), validating webhooks in parallel.
 * Failures follow `failurePolicy`; denials are answered with the webhook's Status.
 */
import type { Status } from 'rxkube';
import type { UserInfo } from '../../access-review.js';
import { badRequest, failure, StatusError } from '../../status-error.js';
import { denialStatus, inVersion, reviewRequest, verifyResponse } from './admission-review.js';
import { applyWebhookPatch, WebhookPatchFailure } from './webhook-patch.js';
import { postReview, WebhookCallFailure, webhookUrl, type WebhookCallSettings } from './webhook-client.js';
import type { AdmissionWebhook } from './webhook-config.js';
import { shouldCallHook, type AdmissionAttributes, type WebhookInvocation } from './webhook-match.js';

type Obj = Record<string, unknown>;

/** What a dispatch needs besides the attributes. */
export interface DispatchContext {
  readonly user: UserInfo;
  readonly fieldManager: string | undefined;
  readonly settings: WebhookCallSettings;
  /** Labels of a namespace, undefined when it does not exist. */
  readonly namespaceLabels: (ns: string) => Record<string, string> | undefined;
  /** Defaults applied again to a patched object (kube-apiserver re-defaults after each patch). */
  readonly defaults: (obj: Obj) => Obj;
  /** Warnings for the client (`Warning` headers); deduplicated by the caller. */
  readonly warnings: string[];
  /**
   * Converts an object to `apiVersion` (a custom resource through its CRD's conversion; throws
   * the StatusError to answer when that fails). Without it only the apiVersion is set.
   */
  readonly convert?: (obj: Obj, apiVersion: string) => Promise<Obj>;
}

function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** `obj` in `apiVersion`: converted when the context converts, else with the apiVersion set. */
async function toVersion(ctx: DispatchContext, obj: Obj | undefined, apiVersion: string): Promise<Obj | undefined> {
  if (obj === undefined || obj['apiVersion'] === apiVersion) return obj;
  return ctx.convert !== undefined ? ctx.convert(obj, apiVersion) : { ...obj, apiVersion };
}

/**
 * The attributes as the webhook sees them: object and oldObject of a custom resource converted to
 * the version the webhook matched (with `matchPolicy: Equivalent` another version than the
 * request's; the objects themselves are in the storage version), as kube-apiserver converts
 * through the CRD's converter.
 */
async function inWebhookVersion(inv: WebhookInvocation, a: AdmissionAttributes, ctx: DispatchContext): Promise<AdmissionAttributes> {
  const target = apiVersionOf(inv.resource.group, inv.resource.version);
  // By the objects' own version: a custom resource may be in its storage version, not the request's.
  if (ctx.convert === undefined) return a;
  return { ...a, object: await toVersion(ctx, a.object, target), oldObject: await toVersion(ctx, a.oldObject, target) };
}

/** A webhook answered with a denial (kube-apiserver's `ErrWebhookRejection`). */
class Rejection {
  constructor(readonly error: StatusError) {}
}

function internalError(why: string): StatusError {
  return new StatusError(failure(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] }));
}

function callingError(h: AdmissionWebhook, reason: string): string {
  return `failed calling webhook "${h.name}": ${reason}`;
}

/** Key-order independent JSON, to tell whether a patch changed the object. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v as Obj).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Obj)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function checkDryRun(h: AdmissionWebhook, a: AdmissionAttributes): void {
  if (!a.dryRun) return;
  if (h.sideEffects === undefined) throw new WebhookCallFailure('Webhook SideEffects is nil');
  if (h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun') throw badRequest(`admission webhook "${h.name}" does not support dry run`);
}

/** One call: the checked answer, or a Rejection / WebhookCallFailure / StatusError thrown. */
async function call(inv: WebhookInvocation, a: AdmissionAttributes, ctx: DispatchContext, mutating: boolean) {
  const h = inv.webhook;
  checkDryRun(h, a);
  a = await inWebhookVersion(inv, a, ctx);
  const review = reviewRequest(inv, a, ctx.user, ctx.fieldManager);
  const timeout = Math.min(Math.max(h.timeoutSeconds, 1), 30);
  const url = webhookUrl(h.clientConfig, timeout, ctx.settings);
  const answer = await postReview(url, review.body, h.clientConfig.caPem, timeout, ctx.settings);
  let res;
  try {
    res = verifyResponse(review, mutating, answer);
  } catch (e) {
    if (e instanceof SyntaxError) throw internalError(e.message);
    throw e;
  }
  for (const w of res.warnings) ctx.warnings.push(w);
  if (!res.allowed) throw new Rejection(new StatusError(denialStatus(h, res.result) as unknown as Status & { code: number }));
  return res;
}

/** Runs one call and sorts its failure: ignored (failurePolicy Ignore), or the StatusError to answer. */
async function settle<T>(h: AdmissionWebhook, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Rejection) throw e.error;
    if (e instanceof WebhookCallFailure) {
      if (h.failurePolicy === 'Ignore') return undefined;
      throw internalError(callingError(h, e.reason));
    }
    throw e;
  }
}

/** State of the reinvocation of `IfNeeded` webhooks (kube-apiserver's `webhookReinvokeContext`). */
class Reinvocation {
  previouslyInvoked = new Set<string>();
  readonly reinvoke = new Set<string>();
  shouldReinvoke = false;

  changed(): void {
    for (const uid of this.previouslyInvoked) this.reinvoke.add(uid);
    this.previouslyInvoked = new Set();
    this.shouldReinvoke = true;
  }
}

async function mutatingRound(hooks: readonly AdmissionWebhook[], a: AdmissionAttributes, ctx: DispatchContext, round: number, state: Reinvocation): Promise<Obj | undefined> {
  let object = a.object;
  for (const h of hooks) {
    const attrs = { ...a, object };
    const inv = shouldCallHook(h, attrs, ctx.namespaceLabels);
    if (inv === undefined) continue;
    if (round === 1 && !state.reinvoke.has(h.uid)) continue;
    const res = await settle(h, () => call(inv, attrs, ctx, true));
    let changed = false;
    if (res !== undefined && Array.isArray(res.patch) && res.patch.length > 0) {
      if (res.patchType !== 'JSONPatch') {
        if (h.failurePolicy !== 'Ignore') throw internalError(callingError(h, `unsupported patch type "${res.patchType}"`));
      } else {
        if (object === undefined) throw internalError(`admission webhook "${h.name}" attempted to modify the object, which is not supported for this operation`);
        const versioned = (await toVersion(ctx, object, apiVersionOf(inv.resource.group, inv.resource.version))) ?? inVersion(object, inv.resource.group, inv.resource.version) as Obj;
        let patched: Obj;
        try {
          patched = applyWebhookPatch(versioned, res.patch as unknown[]);
        } catch (e) {
          if (e instanceof WebhookPatchFailure) throw internalError(e.message);
          throw e;
        }
        const back = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
        patched = ctx.defaults(ctx.convert !== undefined && patched['apiVersion'] !== back ? await ctx.convert(patched, back) : { ...patched, apiVersion: back });
        changed = canonical(patched) !== canonical(object);
        object = patched;
      }
    }
    if (changed) state.changed();
    if (h.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(h.uid);
  }
  return object;
}

/**
 * Calls the mutating webhooks that match, in order, and returns the object as they left it
 * (the same object when none changed it); throws the StatusError to answer.
 */
export async function dispatchMutating(hooks: readonly AdmissionWebhook[], a: AdmissionAttributes, ctx: DispatchContext): Promise<Obj | undefined> {
  const state = new Reinvocation();
  const first = await mutatingRound(hooks, a, ctx, 0, state);
  if (!state.shouldReinvoke) return first;
  return mutatingRound(hooks, { ...a, object: first }, ctx, 1, state);
}

/** Calls the validating webhooks that match, all at once; the first failure (in completion order) is thrown. */
export async function dispatchValidating(hooks: readonly AdmissionWebhook[], a: AdmissionAttributes, ctx: DispatchContext): Promise<void> {
  const invocations: WebhookInvocation[] = [];
  for (const h of hooks) {
    const inv = shouldCallHook(h, a, ctx.namespaceLabels);
    if (inv !== undefined) invocations.push(inv);
  }
  if (invocations.length === 0) return;
  const errors: unknown[] = [];
  await Promise.all(invocations.map((inv) => settle(inv.webhook, () => call(inv, a, ctx, false)).catch((e: unknown) => void errors.push(e))));
  if (errors.length > 0) throw errors[0];
}
