/**
 * Cookbook, sharding across replicas (examples/cookbook/sharding.ts), over HTTP against the
 * embedded API server (Leases, labels): two replicas, each with its own client and manager, split
 * the ConfigMaps between them; each ConfigMap is reconciled by the shard its label names; when one
 * replica stops, its shard Lease is released and the other takes its ConfigMaps over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, type Manager } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { RECONCILED_BY, shardReplica } from '../../examples/cookbook/sharding.js';
import { until } from '../helpers/until.js';

const NS = 'stamper';
const SHARD_LABEL = 'shard.rxkube.io/stamper';

describe('cookbook: sharding across replicas', () => {
  let server: ApiServer;
  const clients: KubeClient[] = [];
  beforeAll(async () => {
    server = await startApiServer();
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (let i = 0; i < 20; i++) server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: NS } });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server.close();
  });

  it('two replicas split the objects; a stopped replica\'s objects move to the other', async () => {
    const replicas = new Map<string, { mgr: Manager; stop: AbortController; done: Promise<void> }>();
    for (const shard of ['replica-a', 'replica-b']) {
      const client = KubeClient.fromKubeConfig(server.kubeConfig);
      clients.push(client);
      const mgr = shardReplica(client, shard, NS);
      const stop = new AbortController();
      replicas.set(shard, { mgr, stop, done: mgr.start(stop.signal) });
    }
    const cms = () => server.list('v1', 'ConfigMap', NS).filter((o) => o.metadata?.name?.startsWith('cm-'));
    const stampedBy = (o: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } }) =>
      o.metadata?.annotations?.[RECONCILED_BY] !== undefined && o.metadata.annotations[RECONCILED_BY] === o.metadata.labels?.[SHARD_LABEL];
    try {
      await until('every ConfigMap reconciled by the shard it is assigned to', () => cms().every(stampedBy), 30_000);
      const shards = new Set(cms().map((o) => o.metadata?.labels?.[SHARD_LABEL]));
      expect([...shards].sort()).toEqual(['replica-a', 'replica-b']);

      const a = replicas.get('replica-a');
      a?.stop.abort();
      await a?.done;
      await until('replica-b has every ConfigMap', () => cms().every((o) => stampedBy(o) && o.metadata?.labels?.[SHARD_LABEL] === 'replica-b'), 30_000);
      expect(cms()).toHaveLength(20);
    } finally {
      for (const { stop, done } of replicas.values()) {
        stop.abort();
        await done;
      }
    }
  }, 90_000);
});
