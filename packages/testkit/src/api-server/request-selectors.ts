import type { UnstructuredObject } from 'rxkube';
import { LabelSelectorError, parseLabelSelector, type ParsedLabelSelector } from 'rxkube/api';
import { parseFieldSelector } from './field-selector.js';
import type { ServedResource } from './resource-registry.js';
import { badRequest, StatusError } from './status-error.js';

/** The label and field selectors of a request, as one predicate. */
export interface RequestSelectors {
  readonly matches: (o: UnstructuredObject) => boolean;
  /** True when any selector term is set. */
  readonly selective: boolean;
}

/**
 * Parses `labelSelector` and `fieldSelector` (plus `metadata.name=<name>` for a watch on one object);
 * 400 BadRequest with kube-apiserver's messages when they are malformed or name unknown fields.
 */
export function requestSelectors(r: ServedResource, q: URLSearchParams, name?: string): RequestSelectors {
  const labels = requestLabelSelector(q.get('labelSelector'));
  let fieldText = q.get('fieldSelector') ?? '';
  if (name !== undefined) fieldText = fieldText === '' ? `metadata.name=${name}` : `${fieldText},metadata.name=${name}`;
  let fields;
  try {
    fields = parseFieldSelector(fieldText, r.fields);
  } catch (e) {
    if (e instanceof StatusError && e.status.message?.startsWith('field label not supported') && Object.keys(r.fields).length === 2) {
      const f = e.status.message.slice('field label not supported: '.length);
      throw badRequest(`"${f}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    throw e;
  }
  const matches = (o: UnstructuredObject) => labels.matches(o.metadata?.labels) && fields.matches(o);
  return { matches, selective: labels.requirements.length > 0 || fields.terms.length > 0 };
}

/**
 * Parses a request's `labelSelector` (absent = everything) with the client's parser; a malformed one
 * is a 400 BadRequest whose message is kube-apiserver's (`unable to parse requirement: ...`).
 */
export function requestLabelSelector(selector: string | null): ParsedLabelSelector {
  try {
    return parseLabelSelector(selector ?? '');
  } catch (e) {
    if (e instanceof LabelSelectorError) throw badRequest(e.reason);
    throw e;
  }
}
