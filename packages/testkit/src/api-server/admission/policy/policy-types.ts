/** The fields of ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1) admission reads. */
import type { LabelSelector, MatchResources } from './match.js';

/** `spec.validations[]`. */
export interface PolicyValidation {
  readonly expression?: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
}

/** `spec.variables[]`, `spec.matchConditions[]` (name and expression). */
export interface NamedExpression {
  readonly name?: string;
  readonly expression?: string;
}

/** A ValidatingAdmissionPolicy's spec. */
export interface PolicySpec {
  readonly paramKind?: { readonly apiVersion?: string; readonly kind?: string };
  readonly matchConstraints?: MatchResources;
  readonly validations?: readonly PolicyValidation[];
  readonly failurePolicy?: string;
  readonly auditAnnotations?: readonly { readonly key?: string; readonly valueExpression?: string }[];
  readonly matchConditions?: readonly NamedExpression[];
  readonly variables?: readonly NamedExpression[];
}

/** A ValidatingAdmissionPolicyBinding's spec. */
export interface BindingSpec {
  readonly policyName?: string;
  readonly paramRef?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly selector?: LabelSelector;
    readonly parameterNotFoundAction?: string;
  };
  readonly matchResources?: MatchResources;
  readonly validationActions?: readonly string[];
}
