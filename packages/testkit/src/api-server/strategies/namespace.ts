/**
 * Namespaces: created `Active` with the `kubernetes` finalizer in `spec.finalizers`; a delete makes
 * them `Terminating` until the namespace controller finalizes them through `/finalize`.
 */
import type { UnstructuredObject } from 'rxkube';
import type { Defaulter } from '../admission/defaults.js';
import { DNS1123_LABEL, DNS1123_LABEL_MSG, o, str as stringOr } from '../admission/field-rules.js';
import type { Validator } from '../admission/validation.js';
import { parseJsonBody } from '../http-io.js';
import { finalizeNamespace } from '../namespace-finalize.js';
import { methodNotAllowed, unknownPath } from '../status-error.js';
import { AGE, NAME, str } from '../table-cells.js';
import { strategy } from './default.js';
import type { DeletionPlan, StrategyHandler } from './strategy.js';

/** The namespace controller's finalizer in a Namespace's `spec.finalizers`. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** A namespace: its name is a DNS label. */
const validateNamespace: Validator = (c, obj) => {
  const name = stringOr(o(obj['metadata'])?.['name']);
  if (name !== '' && (!DNS1123_LABEL.test(name) || name.length > 63)) c.invalidValue('metadata.name', name, DNS1123_LABEL_MSG);
};

/** A namespace starts Active. */
const defaultNamespace: Defaulter = (o, create) => {
  if (create && o['status'] === undefined) o['status'] = { phase: 'Active' };
};

function specFinalizers(o: UnstructuredObject): readonly string[] {
  const spec = o['spec'] as { finalizers?: readonly string[] } | undefined;
  return spec?.finalizers ?? [];
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A namespace delete: Terminating while finalizers are pending (kube-apiserver 1.20 answers it unchanged meanwhile). */
function planNamespaceDeletion(current: UnstructuredObject): DeletionPlan {
  const meta = current.metadata ?? {};
  const done = specFinalizers(current).length === 0 && (meta.finalizers ?? []).length === 0;
  if (done) return { type: 'remove' };
  if (meta.deletionTimestamp !== undefined) return { type: 'unchanged' };
  const status = { ...((current['status'] as object | undefined) ?? {}), phase: 'Terminating' };
  return { type: 'mark', object: { ...current, metadata: { ...meta, deletionTimestamp: now(), deletionGracePeriodSeconds: 0 }, status } };
}

/** `PUT /api/v1/namespaces/{name}/finalize`. */
const finalize: StrategyHandler = async ({ method, service, r, version, name, readBody }) => {
  if (name === undefined) throw unknownPath();
  if (method !== 'PUT') throw methodNotAllowed(method);
  const obj = service.decode(r, version, parseJsonBody(await readBody(), r));
  return { code: 200, body: finalizeNamespace(service, r, name, obj).json };
};

/** The namespace strategy (core/v1 namespaces). */
export const NAMESPACE_STRATEGY = strategy({
  prepareForCreate: (o) => {
    o['spec'] = { finalizers: [NAMESPACE_FINALIZER], ...((o['spec'] as object | undefined) ?? {}) };
    o['status'] = { phase: 'Active' };
  },
  defaults: defaultNamespace,
  validate: validateNamespace,
  planDeletion: planNamespaceDeletion,
  holdsDeletion: (o) => specFinalizers(o).length > 0,
  deleteAnswer: 'object',
  subresources: { finalize },
  columns: [NAME, { name: 'Status', type: 'string', cell: (o) => str(o, 'status.phase', '') }, AGE],
});
