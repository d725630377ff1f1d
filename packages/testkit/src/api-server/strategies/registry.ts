/**
 * The one place that says which strategy a resource has: the kinds with a strategy file, the other
 * built-in kinds with defaults, validation, a `/scale` subresource or their own table columns (a
 * strategy each, made from the tables below and admission's), the default strategy for everything
 * else, and what a server core adds at run time (CRD admission, custom resources' schema admission)
 * in a {@link StrategyRegistry}. A new special kind is a strategy file and one line here.
 */
import { SSAR_RESOURCE_ID } from '../access-review.js';
import { BINDING_RESOURCE_ID, POLICY_RESOURCE_ID } from '../admission/policy/policy-resources.js';
import { VALIDATING_ADMISSION_POLICY_BINDING_STRATEGY, VALIDATING_ADMISSION_POLICY_STRATEGY } from '../admission/policy/policy-strategies.js';
import { KIND_DEFAULTS } from '../admission/defaults.js';
import { KIND_VALIDATORS } from '../admission/validation.js';
import type { Column } from '../table-cells.js';
import { EVENT_COLUMNS } from '../table-columns.js';
import type { ServedResource } from '../resource-registry.js';
import { SELF_SUBJECT_ACCESS_REVIEW_STRATEGY } from './access-review.js';
import { CONFIG_MAP_STRATEGY, SECRET_STRATEGY } from './config-data.js';
import { DEFAULT_STRATEGY, strategy } from './default.js';
import { LEASE_STRATEGY } from './lease.js';
import { NAMESPACE_STRATEGY } from './namespace.js';
import { POD_STRATEGY } from './pod.js';
import { SERVICE_STRATEGY } from './service.js';
import type { ResourceStrategy, ScaleSpec, StrategyLookup } from './strategy.js';

type Resource = Pick<ServedResource, 'group' | 'plural' | 'kind' | 'custom'>;

/** The built-in kinds with a strategy file, by `group/plural`. */
const OWN_STRATEGIES: Readonly<Record<string, ResourceStrategy>> = {
  '/pods': POD_STRATEGY,
  '/namespaces': NAMESPACE_STRATEGY,
  '/services': SERVICE_STRATEGY,
  '/configmaps': CONFIG_MAP_STRATEGY,
  '/secrets': SECRET_STRATEGY,
  'coordination.k8s.io/leases': LEASE_STRATEGY,
  [SSAR_RESOURCE_ID]: SELF_SUBJECT_ACCESS_REVIEW_STRATEGY,
  [POLICY_RESOURCE_ID]: VALIDATING_ADMISSION_POLICY_STRATEGY,
  [BINDING_RESOURCE_ID]: VALIDATING_ADMISSION_POLICY_BINDING_STRATEGY,
};

/** The workloads with a `/scale` subresource, by `group/Kind`: replicas and selector in `spec`, as in apps/v1. */
const WORKLOAD_SCALE: Readonly<Record<string, ScaleSpec>> = Object.fromEntries(
  ['apps/Deployment', 'apps/ReplicaSet', 'apps/StatefulSet', '/ReplicationController'].map((gk) => [gk, { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' }]),
);

/** Kinds whose table columns are not Name, the kind's own, then Age (core events: Last Seen first). */
const KIND_COLUMNS: Readonly<Record<string, readonly Column[]>> = { '/Event': EVENT_COLUMNS };

/** Strategies of the kinds that only default, validate or scale, by `group/Kind` (built once). */
const TABLE_STRATEGIES = new Map<string, ResourceStrategy>(
  [...new Set([...Object.keys(KIND_DEFAULTS), ...Object.keys(KIND_VALIDATORS), ...Object.keys(WORKLOAD_SCALE), ...Object.keys(KIND_COLUMNS)])].map((gk) => [
    gk,
    strategy({
      ...(KIND_DEFAULTS[gk] !== undefined ? { defaults: KIND_DEFAULTS[gk] } : {}),
      ...(KIND_VALIDATORS[gk] !== undefined ? { validate: KIND_VALIDATORS[gk] } : {}),
      ...(WORKLOAD_SCALE[gk] !== undefined ? { scale: WORKLOAD_SCALE[gk] } : {}),
      ...(KIND_COLUMNS[gk] !== undefined ? { columns: KIND_COLUMNS[gk] } : {}),
    }),
  ]),
);

/** A custom resource's DELETE answers the object, as kube-apiserver's custom resource handler does. */
const CUSTOM_STRATEGY = strategy({ deleteAnswer: 'object' });

/** The strategy of a built-in (or custom) resource, without run-time additions. */
export function builtinStrategyFor(r: Resource): ResourceStrategy {
  if (r.custom) return CUSTOM_STRATEGY;
  return OWN_STRATEGIES[`${r.group}/${r.plural}`] ?? TABLE_STRATEGIES.get(`${r.group}/${r.kind}`) ?? DEFAULT_STRATEGY;
}

/** Strategies of one server core: the built-in ones, plus those added at run time by `group/plural` or for every custom resource. */
export class StrategyRegistry implements StrategyLookup {
  private readonly added = new Map<string, ResourceStrategy>();
  private custom: ResourceStrategy = CUSTOM_STRATEGY;

  /** Changes the strategy of the built-in resource `r` (its built-in strategy with `overrides`). */
  register(r: Resource, overrides: Partial<ResourceStrategy>): void {
    this.added.set(`${r.group}/${r.plural}`, { ...builtinStrategyFor(r), ...overrides });
  }

  /** Sets what every custom resource's strategy changes (its admission against the CRD schema). */
  registerCustom(overrides: Partial<ResourceStrategy>): void {
    this.custom = { ...CUSTOM_STRATEGY, ...overrides };
  }

  /** The strategy of `r`. */
  for(r: Resource): ResourceStrategy {
    if (r.custom) return this.custom;
    return this.added.get(`${r.group}/${r.plural}`) ?? builtinStrategyFor(r);
  }
}
