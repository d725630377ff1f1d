/**
 * The one place that serves ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (admissionregistration.k8s.io/v1, GA in Kubernetes 1.30, cluster-scoped). The emulated 1.20 API
 * has no such resources; they are added here so that a version switch can gate them in one place.
 */
import { COMMON_FIELDS } from '../../field-selector.js';
import type { ServedResource } from '../../served-resource.js';

/** The API group of admission policies. */
export const POLICY_GROUP = 'admissionregistration.k8s.io';

/** Storage id of ValidatingAdmissionPolicies. */
export const POLICY_RESOURCE_ID = `${POLICY_GROUP}/validatingadmissionpolicies`;
/** Storage id of ValidatingAdmissionPolicyBindings. */
export const BINDING_RESOURCE_ID = `${POLICY_GROUP}/validatingadmissionpolicybindings`;

const base = { group: POLICY_GROUP, versions: ['v1'], namespaced: false, shortNames: [], categories: ['api-extensions'], custom: false, fields: COMMON_FIELDS } as const;

/** The ValidatingAdmissionPolicy resource. */
export const POLICY_RESOURCE: ServedResource = { ...base, plural: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy', kind: 'ValidatingAdmissionPolicy', hasStatus: true, hasGeneration: true };
/** The ValidatingAdmissionPolicyBinding resource. */
export const BINDING_RESOURCE: ServedResource = { ...base, plural: 'validatingadmissionpolicybindings', singular: 'validatingadmissionpolicybinding', kind: 'ValidatingAdmissionPolicyBinding', hasStatus: false, hasGeneration: true };

/** The resources of validating admission policies (served from Kubernetes 1.30). */
export function validatingAdmissionPolicyResources(): ServedResource[] {
  return [POLICY_RESOURCE, BINDING_RESOURCE];
}
