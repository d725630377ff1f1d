/**
 * Cookbook, watching a secondary resource through an index (examples/cookbook/secondary-index.ts),
 * in virtual time against the in-process cluster: a change to a ConfigMap a Deployment reads (as a
 * volume or through envFrom) re-stamps that Deployment's template, a change to another ConfigMap
 * touches no Deployment.
 */
import { describe, expect, it } from 'vitest';
import type { K8s } from 'rxkube';
import { virtualTime } from '@rxkube/testkit';
import { CONFIG_HASH, configMapsOf, configReloader } from '../../examples/cookbook/secondary-index.js';

const configMap = (name: string, v: string): K8s.ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });
function deployment(name: string, pod: Partial<K8s.PodSpec>): K8s.Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...pod } },
    },
  };
}

describe('cookbook: watching a secondary resource through an index', () => {
  it('indexes Deployments by the ConfigMaps they read', () => {
    const d = deployment('web', {
      volumes: [{ name: 'cfg', configMap: { name: 'web-config' } }, { name: 'tmp', emptyDir: {} }],
      containers: [{ name: 'c', image: 'busybox', envFrom: [{ configMapRef: { name: 'shared' } }, { secretRef: { name: 's' } }] }],
    });
    expect(configMapsOf(d)).toEqual(['default/web-config', 'default/shared']);
  });

  it('a ConfigMap change re-stamps exactly the Deployments that read it', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually, converged }) => {
      cluster.seed([
        configMap('web-config', '1'),
        configMap('shared', '1'),
        configMap('unrelated', '1'),
        deployment('web', { volumes: [{ name: 'cfg', configMap: { name: 'web-config' } }] }),
        deployment('api', { containers: [{ name: 'c', image: 'busybox', envFrom: [{ configMapRef: { name: 'shared' } }] }] }),
      ]);
      const hashOf = (name: string): string | undefined =>
        (cluster.get('apps/v1', 'Deployment', name, 'default') as K8s.Deployment | undefined)?.spec?.template.metadata?.annotations?.[CONFIG_HASH];
      const change = (name: string, v: string): void => void cluster.update({ ...cluster.get('v1', 'ConfigMap', name, 'default'), data: { v } });
      start(configReloader(cluster.client, cluster.informers()));

      await eventually(() => hashOf('web') !== undefined && hashOf('api') !== undefined, { what: 'both stamped' });
      await converged();
      const [web, api] = [hashOf('web'), hashOf('api')];
      const patches = cluster.requests.count({ method: 'PATCH' });

      scheduler.schedule(() => change('unrelated', '2'), 10);
      await converged();
      expect(cluster.requests.count({ method: 'PATCH' })).toBe(patches); // no Deployment reads it

      scheduler.schedule(() => change('shared', '2'), 10);
      await eventually(() => hashOf('api') !== api, { what: 'api re-stamped' });
      await converged();
      expect(hashOf('web')).toBe(web);
      expect(cluster.requests.count({ method: 'PATCH' })).toBe(patches + 1);
    });
  });
});
