/** The strategy of a kind with nothing special: no own defaults or validation, deletes at once unless finalizers hold it. */
import type { ResourceStrategy } from './strategy.js';

/** The ordinary behaviour every strategy starts from. */
export const DEFAULT_STRATEGY: ResourceStrategy = {
  typedFields: [],
  prepareForCreate: () => undefined,
  beforeDefaults: () => undefined,
  defaults: () => undefined,
  validate: () => undefined,
  gracePeriodSeconds: () => 0,
  planDeletion: () => undefined,
  holdsDeletion: () => false,
  deleteAnswer: 'status',
  subresources: {},
  endpoint: undefined,
  scale: undefined,
  columns: undefined,
  admitCreate: undefined,
  admitUpdate: undefined,
};

/** A strategy: the default one with `overrides`. */
export function strategy(overrides: Partial<ResourceStrategy>): ResourceStrategy {
  return { ...DEFAULT_STRATEGY, ...overrides };
}
