import type { UnstructuredObject } from 'rxkube';
import type { ListPage } from './list-operation.js';
import { failure, StatusError } from './status-error.js';

/** Which metadata-only view an `Accept` header asks for, if any. */
export type MetadataView = 'object' | 'list';

/**
 * Reads `as=PartialObjectMetadata` / `as=PartialObjectMetadataList` (group `meta.k8s.io`, version
 * `v1`) from the first media type of an `Accept` header that names one, as kube-apiserver's
 * content negotiation does (client-go's metadata client sends it with `application/json` as a
 * fallback).
 */
export function metadataView(accept: string | undefined): MetadataView | undefined {
  if (accept === undefined) return undefined;
  for (const part of accept.split(',')) {
    const params = new Map<string, string>();
    const [type, ...rest] = part.split(';').map((s) => s.trim());
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
    }
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const as = params.get('as');
    if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') continue;
    if (params.get('g') !== 'meta.k8s.io' || (params.get('v') ?? 'v1') !== 'v1') continue;
    return as === 'PartialObjectMetadata' ? 'object' : 'list';
  }
  return undefined;
}

/** kube-apiserver's 406 for a view that does not fit the response (a list asked for as one object, or the reverse). */
export function notAcceptable(message: string): StatusError {
  return new StatusError(failure(406, 'NotAcceptable', message));
}

/** One object's metadata as `meta.k8s.io/v1 PartialObjectMetadata` JSON. */
export function partialObjectJson(object: UnstructuredObject): string {
  return JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata ?? {} });
}

/** A list page as `meta.k8s.io/v1 PartialObjectMetadataList` JSON (every item a `PartialObjectMetadata`). */
export function partialListJson(page: ListPage): string {
  const meta: Record<string, string | number> = { resourceVersion: String(page.resourceVersion) };
  if (page.continueToken !== undefined) meta['continue'] = page.continueToken;
  if (page.remainingItemCount !== undefined) meta['remainingItemCount'] = page.remainingItemCount;
  const items = page.items.map((e) => partialObjectJson(e.object)).join(',');
  return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(meta)},"items":[${items}]}`;
}
