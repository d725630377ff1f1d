import { afterAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import type { UnstructuredObject } from 'rxkube';
import { until } from '../../../test/helpers/until.js';

const phase = (p: UnstructuredObject | undefined) => (p?.['status'] as { phase?: string } | undefined)?.phase;

describe('namespace controller and stand-in nodes', () => {
  const servers: ApiServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('the namespace controller empties a Terminating namespace, waits for a bound pod (no kubelet), then removes it', async () => {
    const server = await startApiServer({ controllers: { controllers: ['namespace'] } });
    servers.push(server);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone' } });
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'gone' } });
    server.seed([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'gone' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running' } } as UnstructuredObject]);
    server.delete('v1', 'Namespace', 'gone');
    await until('configmap deleted', () => server.get('v1', 'ConfigMap', 'c', 'gone') === undefined);
    // The pod is deleted gracefully and stays; so does the namespace.
    await until('pod terminating', () => server.get('v1', 'Pod', 'p', 'gone')?.metadata?.deletionTimestamp !== undefined);
    expect(phase(server.get('v1', 'Namespace', 'gone'))).toBe('Terminating');
    server.delete('v1', 'Pod', 'p', 'gone', { gracePeriodSeconds: 0 }); // what a kubelet does
    await until('namespace removed', () => server.get('v1', 'Namespace', 'gone') === undefined);
  });

  it('stand-in nodes: nodes registered Ready, pods bound round robin, Running and Ready, graceful deletions confirmed', async () => {
    const server = await startApiServer({ controllers: { controllers: [], standInNodes: 2, podStartupMs: 10 } });
    servers.push(server);
    await until('nodes', () => server.list('v1', 'Node').length === 2);
    for (const name of ['a', 'b']) server.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    await until('running', () => ['a', 'b'].every((n) => phase(server.get('v1', 'Pod', n, 'default')) === 'Running'));
    const nodes = ['a', 'b'].map((n) => (server.get('v1', 'Pod', n, 'default')?.['spec'] as { nodeName?: string }).nodeName).sort();
    expect(nodes).toEqual(['node-1', 'node-2']);
    const pod = server.get('v1', 'Pod', 'a', 'default');
    expect(((pod?.['status'] as { conditions?: { type: string; status: string }[] }).conditions ?? []).find((c) => c.type === 'Ready')?.status).toBe('True');
    // A pod for another scheduler is left alone.
    server.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other', namespace: 'default' }, spec: { schedulerName: 'custom', containers: [{ name: 'c', image: 'i' }] } });
    const deleting = server.delete('v1', 'Pod', 'a', 'default');
    expect(deleting?.metadata?.deletionGracePeriodSeconds).toBe(30);
    await until('deletion confirmed', () => server.get('v1', 'Pod', 'a', 'default') === undefined);
    expect((server.get('v1', 'Pod', 'other', 'default')?.['spec'] as { nodeName?: string }).nodeName).toBeUndefined();
  });
});

describe('endpoints controller', () => {
  it('lists the Ready pods a Service selects (not-ready ones apart), follows changes, goes with the Service', async () => {
    const server = await startApiServer({ controllers: { controllers: ['endpoint'], standInNodes: 1, podStartupMs: 10 } });
    try {
      server.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } } as UnstructuredObject);
      for (const name of ['w1', 'w2']) server.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } as UnstructuredObject);
      server.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other', namespace: 'default', labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } as UnstructuredObject);
      type Ep = { subsets?: { addresses?: { targetRef: { name: string } }[]; ports?: { port: number; name?: string }[] }[] };
      const ep = () => server.get('v1', 'Endpoints', 'web', 'default') as (UnstructuredObject & Ep) | undefined;
      await until('two addresses', () => ep()?.subsets?.[0]?.addresses?.length === 2);
      expect(ep()?.subsets?.[0]?.addresses?.map((a) => a.targetRef.name)).toEqual(['w1', 'w2']);
      expect(ep()?.subsets?.[0]?.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
      server.delete('v1', 'Pod', 'w1', 'default', { gracePeriodSeconds: 0 });
      await until('one address', () => ep()?.subsets?.[0]?.addresses?.length === 1);
      server.delete('v1', 'Service', 'web', 'default');
      await until('endpoints deleted', () => ep() === undefined);
    } finally {
      await server.close();
    }
  });
});
