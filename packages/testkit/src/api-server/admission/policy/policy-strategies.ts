/**
 * The strategies of ValidatingAdmissionPolicy and its binding: their validation on create and
 * update (compile-policy.ts) and the table columns kube-apiserver 1.30 prints for them.
 */
import { strategy } from '../../strategies/default.js';
import { AGE, NAME, type Column } from '../../table-cells.js';
import { bindingProblems, policyProblems } from './compile-policy.js';
import type { BindingSpec, PolicySpec } from './policy-types.js';

function specOf<T>(o: Record<string, unknown>): T {
  return (o['spec'] ?? {}) as T;
}

/** Name, Validations, ParamKind, Age. */
const POLICY_COLUMNS: readonly Column[] = [
  NAME,
  { name: 'Validations', type: 'integer', cell: (o) => (specOf<PolicySpec>(o).validations ?? []).length },
  {
    name: 'ParamKind',
    type: 'string',
    cell: (o) => {
      const p = specOf<PolicySpec>(o).paramKind;
      return p === undefined ? '<unset>' : `${p.apiVersion ?? ''}/${p.kind ?? ''}`;
    },
  },
  AGE,
];

/** Name, PolicyName, ParamRef, Age. */
const BINDING_COLUMNS: readonly Column[] = [
  NAME,
  { name: 'PolicyName', type: 'string', cell: (o) => specOf<BindingSpec>(o).policyName ?? '' },
  {
    name: 'ParamRef',
    type: 'string',
    cell: (o) => {
      const r = specOf<BindingSpec>(o).paramRef;
      if (r === undefined) return '<unset>';
      if ((r.name ?? '') !== '') return (r.namespace ?? '') !== '' ? `${r.namespace ?? ''}/${r.name ?? ''}` : `*/${r.name ?? ''}`;
      return '<unset>';
    },
  },
  AGE,
];

/** The ValidatingAdmissionPolicy strategy: validation of its spec, its table columns. */
export const VALIDATING_ADMISSION_POLICY_STRATEGY = strategy({
  validate: (c, o) => void c.list.push(...policyProblems(specOf<PolicySpec | undefined>(o))),
  columns: POLICY_COLUMNS,
});

/** The ValidatingAdmissionPolicyBinding strategy: validation of its spec, its table columns. */
export const VALIDATING_ADMISSION_POLICY_BINDING_STRATEGY = strategy({
  validate: (c, o) => void c.list.push(...bindingProblems(specOf<BindingSpec | undefined>(o))),
  columns: BINDING_COLUMNS,
});
