// The embedded server's resource kinds are strategy objects found in one registry
// (packages/testkit/src/api-server/strategies/), not string comparisons spread over the request path.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../src/api-server/resource-registry.js';
import { builtinStrategyFor, StrategyRegistry } from '../src/api-server/strategies/registry.js';
import { DEFAULT_STRATEGY } from '../src/api-server/strategies/default.js';

const serverDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/api-server');

/** The files every request goes through: none of them may single out a resource by its name. */
const REQUEST_PATH = ['request-handler.ts', 'object-service.ts', 'api-core.ts', 'deletion-lifecycle.ts', 'admission/index.ts', 'admission/defaults.ts', 'admission/validation.ts', 'scale-subresource.ts'];

describe('embedded API server: resource strategies', () => {
  it('the request path compares no resource names (plural, resource id or group/kind)', () => {
    const branch = /(plural|kind|resourceId\([^)]*\))\s*===\s*'|===\s*'\/[a-z]+'|case\s+'[a-z.]*\/[A-Za-z]+'\s*:|isCore\(/;
    const offending = REQUEST_PATH.flatMap((f) => fs.readFileSync(path.join(serverDir, f), 'utf8').split('\n').map((line, i) => [f, i + 1, line] as const))
      .filter(([, , line]) => branch.test(line))
      .map(([f, n, line]) => `${f}:${n}: ${line.trim()}`);
    expect(offending).toEqual([]);
  });

  it('every served built-in resource has a strategy; the special ones their own', () => {
    const registry = new ResourceRegistry();
    const find = (group: string, plural: string) => {
      const r = registry.byGroupPlural(group, plural);
      expect(r, `${group}/${plural}`).toBeDefined();
      return builtinStrategyFor(r as NonNullable<typeof r>);
    };
    for (const r of registry.all()) expect(builtinStrategyFor(r), `${r.group}/${r.plural}`).toBeDefined();
    const pods = find('', 'pods');
    expect(Object.keys(pods.subresources)).toEqual(['binding']);
    expect(pods.deleteAnswer).toBe('object');
    expect(pods.gracePeriodSeconds({ spec: { nodeName: 'n1', terminationGracePeriodSeconds: 10 }, status: { phase: 'Running' } }, undefined)).toBe(10);
    expect(pods.gracePeriodSeconds({ spec: {}, status: { phase: 'Pending' } }, 30)).toBe(0);
    const namespaces = find('', 'namespaces');
    expect(Object.keys(namespaces.subresources)).toEqual(['finalize']);
    expect(namespaces.holdsDeletion({ spec: { finalizers: ['kubernetes'] } })).toBe(true);
    expect(namespaces.planDeletion({ metadata: { name: 'ns' }, spec: { finalizers: ['kubernetes'] } })).toMatchObject({ type: 'mark', object: { status: { phase: 'Terminating' } } });
    expect(find('', 'configmaps').typedFields.map((f) => f.key)).toEqual(['data', 'binaryData', 'immutable']);
    expect(find('apps', 'deployments').scale).toMatchObject({ specReplicasPath: '.spec.replicas' });
    expect(find('apps', 'daemonsets').scale).toBeUndefined();
    expect(find('', 'limitranges')).toBe(DEFAULT_STRATEGY);
    expect(find('authorization.k8s.io', 'selfsubjectaccessreviews').endpoint).toBeTypeOf('function');
  });

  it('a server core registers run-time strategies: a built-in override keeps the rest of the built-in strategy; custom resources share one', () => {
    const strategies = new StrategyRegistry();
    const admitCreate = (_r: unknown, o: Record<string, unknown>) => o;
    strategies.register({ group: '', plural: 'pods', kind: 'Pod', custom: false }, { admitCreate });
    const pods = strategies.for({ group: '', plural: 'pods', kind: 'Pod', custom: false });
    expect(pods.admitCreate).toBe(admitCreate);
    expect(Object.keys(pods.subresources)).toEqual(['binding']);
    const custom = strategies.for({ group: 'example.com', plural: 'widgets', kind: 'Widget', custom: true });
    expect(custom.deleteAnswer).toBe('object');
    strategies.registerCustom({ admitUpdate: admitCreate });
    expect(strategies.for({ group: 'example.com', plural: 'gadgets', kind: 'Gadget', custom: true }).admitUpdate).toBe(admitCreate);
  });
});
