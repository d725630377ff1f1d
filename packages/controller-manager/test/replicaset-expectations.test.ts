/**
 * Tier 2: the ReplicaSet controller (rxkube-controller-manager's, the one `npm run example` runs)
 * does not act on a stale pod cache. The pod watch is cut and its reconnection delayed, so the
 * controller's own creates stay invisible to its cache while ReplicaSet events keep waking it:
 * expectations must hold it back from creating again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InformerFactory, KubeClient } from 'rxkube';
import { replicaSetController, type ReplicaSetSyncReport } from '@rxkube/controller-manager';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { controllerRef, REPLICA_SETS, type Pod, type ReplicaSet } from '../src/replicaset/types.js';
import { eventually } from '../../../test/helpers/eventually.js';

describe('replicaset controller: expectations against a stale cache', () => {
  let server: ApiServer;
  let client: KubeClient;
  const stop = new AbortController();
  let done: Promise<void>;
  const syncs: ReplicaSetSyncReport[] = [];

  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    const informers = new InformerFactory(client, { namespace: 'default' });
    const ctrl = replicaSetController({ informers, client, name: 'rs-expectations-test', onSync: (r) => syncs.push(r) });
    done = ctrl.start(stop.signal);
  });
  afterAll(async () => {
    stop.abort();
    await done;
    client.close();
    await server.close();
  });

  const ownedOnServer = (): Pod[] => (server.list('v1', 'Pod', 'default') as Pod[]).filter((p) => controllerRef(p)?.name === 'web');

  it('creates exactly spec.replicas pods although its pod cache lags behind', async () => {
    const labels = { app: 'web' };
    await client.objects<ReplicaSet>(REPLICA_SETS, 'default').create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    await eventually(() => expect(syncs.some((s) => s.key === 'default/web' && s.statusWritten === true)).toBe(true), 15_000);

    // Cut the pod watch; its relist/rewatch waits 1.5 s. Pod creates (POST) are not delayed.
    server.faults.latency(1_500, { method: 'GET', path: /\/pods/ });
    server.faults.dropWatches({ resourceId: '/pods' });
    await client.objects<ReplicaSet>(REPLICA_SETS, 'default').patch('web', { spec: { replicas: 5 } });

    await eventually(() => {
      const last = syncs.filter((s) => s.key === 'default/web').at(-1);
      expect(last?.status?.replicas).toBe(5);
      expect(last?.pending).toBeUndefined();
    }, 15_000);
    server.faults.clear();
    expect(ownedOnServer()).toHaveLength(5);
    const created = syncs.reduce((n, s) => n + (s.changes?.created.length ?? 0), 0);
    expect(created).toBe(5);
    // While its creates were unseen, it was woken (by its own status write) and held back.
    expect(syncs.some((s) => s.kind === 'waiting' && (s.pending?.creations ?? 0) > 0)).toBe(true);
  });
});
