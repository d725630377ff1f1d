import { afterAll, describe, expect, it } from 'vitest';
import { KubeClient, type UnstructuredObject } from 'rxkube';
import { startControllerManager, type RunningControllerManager } from '../src/index.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { until } from '../../../test/helpers/until.js';

describe('controller manager with leader election', () => {
  let server: ApiServer;
  const managers: RunningControllerManager[] = [];
  const clients: KubeClient[] = [];
  afterAll(async () => {
    for (const m of managers) await m.stop();
    for (const c of clients) c.close();
    await server.close();
  });

  it('two managers, one Lease: only the leader acts (a ReplicaSet gets its pods once)', async () => {
    server = await startApiServer();
    for (let i = 0; i < 2; i++) {
      const client = KubeClient.fromKubeConfig(server.kubeConfig);
      clients.push(client);
      managers.push(await startControllerManager({ client, controllers: ['replicaset'], standInNodes: 1, podStartupMs: 10, leaderElection: { id: 'cm-le-test' } }));
    }
    await until('lease held', () => (server.get('coordination.k8s.io/v1', 'Lease', 'cm-le-test', 'kube-system') as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity);
    server.create({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'default' }, spec: { replicas: 3, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } } as UnstructuredObject);
    await until('3 running pods', () => server.list('v1', 'Pod', 'default').filter((p) => (p['status'] as { phase?: string } | undefined)?.phase === 'Running').length === 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(server.list('v1', 'Pod', 'default')).toHaveLength(3);
  });
});
