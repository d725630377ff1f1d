/**
 * Cookbook, running several clusters (examples/cookbook/several-clusters.ts), over HTTP against
 * two embedded API servers: one controller, one queue; each cluster's ConfigMaps are reconciled
 * with that cluster's cache and client, and the same name in two clusters is two requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { CLUSTER, clusterStamper } from '../../examples/cookbook/several-clusters.js';
import { until } from '../helpers/until.js';

describe('cookbook: several clusters', () => {
  const servers: Record<string, ApiServer> = {};
  const clients: Record<string, KubeClient> = {};
  beforeAll(async () => {
    for (const name of ['east', 'west']) {
      const server = await startApiServer({ tls: true, token: true });
      servers[name] = server;
      clients[name] = KubeClient.fromKubeConfig(server.kubeConfig);
    }
  });
  afterAll(async () => {
    for (const c of Object.values(clients)) c.close();
    for (const s of Object.values(servers)) await s.close();
  });

  it('stamps each cluster\'s ConfigMaps with that cluster\'s name', async () => {
    const east = servers['east'] as ApiServer;
    const west = servers['west'] as ApiServer;
    for (const s of [east, west]) s.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app-config', namespace: 'default' } });
    east.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'east-only', namespace: 'default' } });
    east.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'elsewhere', namespace: 'kube-system' } });
    const stampOf = (s: ApiServer, name: string, ns = 'default'): string | undefined => s.get('v1', 'ConfigMap', name, ns)?.metadata?.annotations?.[CLUSTER];

    const seen: string[] = [];
    const ctrl = clusterStamper(clients, 'default');
    const stop = new AbortController();
    const done = new Promise<void>((resolve, reject) =>
      ctrl.run(stop.signal).subscribe({ next: (o) => void seen.push(`${o.request.cluster}::${o.request.name}`), complete: resolve, error: reject }),
    );
    try {
      // A stamp is on the server before its reconcile's outcome is reported: wait for both.
      const reported = ['east::app-config', 'west::app-config', 'east::east-only'];
      await until('all stamped and reported', () => stampOf(east, 'app-config') === 'east' && stampOf(west, 'app-config') === 'west' && stampOf(east, 'east-only') === 'east' && reported.every((r) => seen.includes(r)));
      expect(stampOf(west, 'east-only')).toBeUndefined();
      expect(west.get('v1', 'ConfigMap', 'east-only', 'default')).toBeUndefined();
      expect(stampOf(east, 'elsewhere', 'kube-system')).toBeUndefined(); // outside the namespace
      expect(seen.filter((r) => r.endsWith('::elsewhere'))).toEqual([]);
    } finally {
      stop.abort();
      await done;
    }
  }, 60_000);
});
