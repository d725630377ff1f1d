/**
 * shardedController's option checks: what a ring cannot work with fails at build time with a
 * ControllerBuildError naming the option (the controller definition itself is controller()'s).
 */
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { KubeClient } from '../../src/client/kube-client.js';
import { ControllerBuildError } from '../../src/controller/controller-errors.js';
import { shardedController, type ShardedControllerOptions } from '../../src/sharding/sharded-controller.js';
import { fakeSource } from '../../src/testing/controller-harness.js';

const client = {} as KubeClient; // never called: building a sharded controller makes no request
const valid: ShardedControllerOptions = {
  for: resources.configMaps,
  owns: [resources.secrets],
  client,
  reconcile: () => undefined,
  sharding: { ring: 'widgets', shard: 's0', leaseNamespace: 'widgets-system' },
};

function buildError(options: unknown): ControllerBuildError {
  try {
    shardedController(options as ShardedControllerOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(ControllerBuildError);
    return err as ControllerBuildError;
  }
  throw new Error('shardedController did not throw');
}

describe('shardedController options', () => {
  it('builds from a controller\'s options and sharding, without a request', () => {
    const c = shardedController(valid);
    expect(c.name).toBe('configmap');
    expect(c.needLeaderElection).toBe(false);
    expect(c.permissions().map((p) => p.resource.kind)).toEqual(['Lease', 'ConfigMap']);
  });

  it.each([
    ['sharding', { ...valid, sharding: undefined }, /needs options\.sharding/],
    ['sharding.ring', { ...valid, sharding: { ...valid.sharding, ring: 'Not/A-Label' } }, /sharding\.ring must be a label name part/],
    ['sharding.shard', { ...valid, sharding: { ...valid.sharding, shard: '' } }, /sharding\.shard must be a non-empty string/],
    ['clusters', { ...valid, clusters: { east: client } }, /sharding and clusters cannot be combined/],
    ['client', { ...valid, client: undefined }, /needs options\.client/],
    ['for', { ...valid, for: fakeSource({ resource: resources.configMaps }) }, /needs for: a resource type/],
    ['owns[1]', { ...valid, owns: [resources.secrets, fakeSource({ resource: resources.secrets })] }, /owns entries given as resource types/],
    ['informers', { ...valid, watches: [{ source: resources.secrets, map: () => [] }] }, /watches resource .* needs options\.informers/],
  ])('%s: a ControllerBuildError naming it', (option, options, message) => {
    const err = buildError(options);
    expect(err.option).toBe(option);
    expect(err.message).toMatch(message);
  });
});
