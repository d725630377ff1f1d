/** The strategies of ValidatingAdmissionPolicy and its binding: their validation on create and update (compile-policy.ts). */
import type { StrategyRegistry } from '../../strategies/registry.js';
import { bindingProblems, policyProblems } from './compile-policy.js';
import { BINDING_RESOURCE, POLICY_RESOURCE } from './policy-resources.js';
import type { BindingSpec, PolicySpec } from './policy-types.js';

/** Registers the validation of policies and bindings with a server core's strategies. */
export function registerPolicyStrategies(strategies: StrategyRegistry): void {
  strategies.register(POLICY_RESOURCE, { validate: (c, o) => void c.list.push(...policyProblems(o['spec'] as PolicySpec | undefined)) });
  strategies.register(BINDING_RESOURCE, { validate: (c, o) => void c.list.push(...bindingProblems(o['spec'] as BindingSpec | undefined)) });
}
