/**
 * The option types of `ObjectClient` calls, in a file of their own so that the helpers an
 * `ObjectClient` delegates to (`create-or-update.ts`, `update-with-recipe.ts`) can use them
 * without importing `object-client.ts` back.
 */
import type { RetryPolicy } from './retry-policy.js';

/** Patch flavours and their content types. */
export const PATCH_CONTENT_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** `merge` (RFC 7386), `json` (RFC 6902 operations), `strategic` (built-in types only), `apply` (server-side apply). */
export type PatchType = keyof typeof PATCH_CONTENT_TYPES;

/** Options every call accepts. */
export interface CallOptions {
  /** Aborts the request (and any wait between retries). */
  readonly signal?: AbortSignal;
  /**
   * Retries after 429, 503 and 504 answers: default the connection's policy (on, see
   * `KubeConnectionOptions.retry`); `false` for none. A create (POST) is retried only on 429.
   */
  readonly retry?: RetryPolicy | false;
  /**
   * Deadline of each request of the call (each attempt; each page of a `list`), in ms: past it the
   * request is aborted and the call fails with `RequestTimeoutError`. Default the connection's
   * `requestTimeoutMs` (60 s, see `KubeConnectionOptions`); 0: none.
   */
  readonly timeoutMs?: number;
}

/** Options of writes. */
export interface WriteOptions extends CallOptions {
  /** Who makes the change (server-side field ownership); default the client's `fieldManager`. */
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
}

/** Options of `patch` and `patchStatus`. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply (`type: 'apply'`) only: take over fields other managers own instead of failing with 409 Conflict. */
  readonly force?: boolean;
}

/** Options of `apply` and `applyStatus`. */
export interface ApplyOptions extends WriteOptions {
  /**
   * Take over fields another field manager owns with a different value. Without it such an apply
   * fails with 409 Conflict (`ApiError`, reason `Conflict`, one `FieldManagerConflict` cause per
   * field). Controllers usually force: they are the authority for the fields they apply.
   */
  readonly force?: boolean;
}

/** Options of an {@link ObjectClient} (see `KubeClient.objects`). */
export interface ObjectClientOptions {
  /** Field manager of every write that names none (required by `apply`). */
  readonly fieldManager?: string;
}

/** Options of `list`. */
export interface ObjectListOptions extends CallOptions {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; default 500. Pages are fetched one after another and assembled. */
  readonly limit?: number;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact';
}

/** Options of `delete`. */
export interface DeleteOptions extends CallOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (else 409 Conflict). */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
  /** Resolve with `undefined` instead of failing with 404 NotFound when the object is already gone (kubectl's `--ignore-not-found`). */
  readonly ignoreNotFound?: boolean;
}
