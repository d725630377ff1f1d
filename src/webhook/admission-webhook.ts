import type { Draft } from 'immer';
import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import { splitApiVersion } from '../api/resource.js';
import type { Logger } from '../logging/logger.js';
import type { AdmissionOperation, AdmissionRequest } from './admission-review.js';
import type { AdmissionVerdict } from './admission-verdict.js';
import { WebhookConfigError } from './webhook-errors.js';

/** What a handler gets beside the request. */
export interface AdmissionContext {
  /** Aborts when the handler's time is up or the request is abandoned; pass it to any call it makes. */
  readonly signal: AbortSignal;
  /** True when the API server will not persist the result (`--dry-run=server`): have no side effects. */
  readonly dryRun: boolean;
  /** The server's logger, with `webhook` and `object` fields. */
  readonly logger: Logger;
  /**
   * The side-effect guard: runs `effect` and returns its result, unless the request is a dry run,
   * in which case it does nothing and returns undefined.
   */
  sideEffect<R>(effect: () => R): R | undefined;
}

/** A handler's answer: nothing (allowed), or a verdict from `allow()` / `deny()`; may be async. */
export type AdmissionAnswer = AdmissionVerdict | void | Promise<AdmissionVerdict | void>;

/** Where a webhook applies and how the API server calls it: the parts that go into its configuration. */
export interface AdmissionWebhookOptions<T extends KubeObject> {
  /** The resource type it admits (its group, version, plural and scope go into the rules). */
  readonly resource: ResourceType<T>;
  /**
   * Path it is served at. Default as controller-runtime: `/mutate-<group with . as ->-<version>-<kind>`
   * (or `/validate-…`), lower case; core group `core`.
   */
  readonly path?: string;
  /** The webhook's name in its configuration (a DNS name). Default `m<kind>.<group>` / `v<kind>.<group>`, lower case. */
  readonly name?: string;
  /** Operations it is called for. Default `['CREATE', 'UPDATE']`. */
  readonly operations?: readonly AdmissionOperation[];
  /**
   * How long the handler may take; after that the request is denied with a message saying so.
   * Default 9 000 ms: inside the API server's default call timeout of 10 s, so the denial reaches
   * the client instead of a timeout error. Also sets the configuration's `timeoutSeconds`
   * (rounded up, at least 1, at most 30).
   */
  readonly timeoutMs?: number;
  /** What the API server does when the call fails (not a denial): default `Fail`. */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** Declared side effects: `None` (default) or `NoneOnDryRun` (the handler uses `ctx.sideEffect`). */
  readonly sideEffects?: 'None' | 'NoneOnDryRun';
  /** `namespaceSelector` of the configuration (a label selector), as written. */
  readonly namespaceSelector?: Readonly<Record<string, unknown>>;
  /** `objectSelector` of the configuration (a label selector), as written. */
  readonly objectSelector?: Readonly<Record<string, unknown>>;
}

/** Options of {@link validatingWebhook}. */
export interface ValidatingWebhookOptions<T extends KubeObject> extends AdmissionWebhookOptions<T> {
  /** Decides: returns nothing or `allow()` to admit, `deny(message)` to refuse; a throw denies. */
  validate(request: AdmissionRequest<T>, ctx: AdmissionContext): AdmissionAnswer;
}

/** Options of {@link mutatingWebhook}. */
export interface MutatingWebhookOptions<T extends KubeObject> extends AdmissionWebhookOptions<T> {
  /**
   * Edits `draft` (an immer draft of `request.object`) in place; rxkube answers with the JSON patch
   * from the object to the draft's result. May also deny (`deny(message)`), then nothing is
   * patched. Not called when there is no object (DELETE): such requests are allowed unchanged.
   */
  mutate(draft: Draft<T>, request: AdmissionRequest<T>, ctx: AdmissionContext): AdmissionAnswer;
}

/** A webhook definition the server serves and the manifests describe. */
export interface AdmissionWebhookBase {
  readonly type: 'mutating' | 'validating';
  readonly path: string;
  readonly name: string;
  readonly resource: ResourceType;
  readonly operations: readonly AdmissionOperation[];
  readonly timeoutMs: number;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly sideEffects: 'None' | 'NoneOnDryRun';
  readonly namespaceSelector: Readonly<Record<string, unknown>> | undefined;
  readonly objectSelector: Readonly<Record<string, unknown>> | undefined;
}

/** A validating webhook (see {@link validatingWebhook}). */
export interface ValidatingWebhook extends AdmissionWebhookBase {
  readonly type: 'validating';
  readonly validate: (request: AdmissionRequest, ctx: AdmissionContext) => AdmissionAnswer;
}

/** A mutating (defaulting) webhook (see {@link mutatingWebhook}). */
export interface MutatingWebhook extends AdmissionWebhookBase {
  readonly type: 'mutating';
  readonly mutate: (draft: Draft<KubeObject>, request: AdmissionRequest, ctx: AdmissionContext) => AdmissionAnswer;
}

/** Either kind of admission webhook. */
export type AdmissionWebhook = ValidatingWebhook | MutatingWebhook;

const DEFAULT_TIMEOUT_MS = 9_000;

function base<T extends KubeObject>(type: 'mutating' | 'validating', o: AdmissionWebhookOptions<T>): AdmissionWebhookBase {
  const { group, version } = splitApiVersion(o.resource.apiVersion);
  const kind = o.resource.kind.toLowerCase();
  const path = o.path ?? `/${type === 'mutating' ? 'mutate' : 'validate'}-${(group === '' ? 'core' : group).replaceAll('.', '-')}-${version}-${kind}`;
  if (!path.startsWith('/')) throw new WebhookConfigError(`webhook path must start with "/", got ${JSON.stringify(path)}`, { option: 'path' });
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 30_000) {
    throw new WebhookConfigError(`webhook ${path}: timeoutMs must be a number in (0, 30000] (the API server waits at most 30 s), got ${String(timeoutMs)}`, { option: 'timeoutMs' });
  }
  const operations = o.operations ?? ['CREATE', 'UPDATE'];
  if (operations.length === 0) throw new WebhookConfigError(`webhook ${path}: operations must not be empty`, { option: 'operations' });
  return {
    type,
    path,
    name: o.name ?? `${type === 'mutating' ? 'm' : 'v'}${kind}.${group === '' ? 'core.k8s.io' : group}`,
    resource: o.resource,
    operations,
    timeoutMs,
    failurePolicy: o.failurePolicy ?? 'Fail',
    sideEffects: o.sideEffects ?? 'None',
    namespaceSelector: o.namespaceSelector,
    objectSelector: o.objectSelector,
  };
}

/**
 * A validating webhook for one resource type (controller-runtime's `CustomValidator`): `validate`
 * gets the typed object (and the old one on UPDATE and DELETE), the operation, the user and
 * whether it is a dry run, and returns nothing or `allow()` (admit, optionally with warnings) or
 * `deny(message)`. A throw, a rejection or running past `timeoutMs` denies the request with a
 * message naming the webhook, the object and the cause; the server never crashes on it.
 *
 * ```ts
 * const validateDatabase = validatingWebhook({
 *   resource: DATABASES,
 *   validate: (req) => (req.object?.spec?.sizeGi ?? 0) > 100 ? deny('sizeGi must be at most 100') : allow(),
 * });
 * ```
 */
export function validatingWebhook<T extends KubeObject>(options: ValidatingWebhookOptions<T>): ValidatingWebhook {
  const validate = options.validate;
  return { ...base('validating', options), type: 'validating', validate: (request, ctx) => validate(request as AdmissionRequest<T>, ctx) };
}

/**
 * A mutating (defaulting) webhook for one resource type (controller-runtime's `CustomDefaulter`):
 * `mutate` edits an immer draft of the object; the answer carries the RFC 6902 JSON patch from the
 * object as sent to the draft's result (nothing when unchanged). Errors and timeouts deny, as for
 * {@link validatingWebhook}.
 *
 * ```ts
 * const defaultDatabase = mutatingWebhook({
 *   resource: DATABASES,
 *   mutate: (draft) => {
 *     draft.spec ??= {};
 *     draft.spec.sizeGi ??= 10;
 *   },
 * });
 * ```
 */
export function mutatingWebhook<T extends KubeObject>(options: MutatingWebhookOptions<T>): MutatingWebhook {
  const mutate = options.mutate;
  return {
    ...base('mutating', options),
    type: 'mutating',
    mutate: (draft, request, ctx) => mutate(draft as Draft<T>, request as AdmissionRequest<T>, ctx),
  };
}
