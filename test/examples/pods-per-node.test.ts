/** Tier 2: the pods-per-node example plays its scenario against the embedded API server. */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { KubeClient, type K8s } from 'rxkube';
import { startApiServer } from '@rxkube/testkit';
import { added, deleted, fakeInformer } from 'rxkube/testing';
import { podsPerNode, renderTable, runPodsPerNode, type Table } from '../../examples/pods-per-node.js';
import { marbles } from '../helpers/marbles.js';

const row = (pending: number, running: number, succeeded: number, failed: number) => ({
  Pending: pending,
  Running: running,
  Succeeded: succeeded,
  Failed: failed,
  Unknown: 0,
});

describe('pods-per-node example', () => {
  it('keeps the table of pods per node and phase current through the scenario', async () => {
    const lines: string[] = [];
    const table = await runPodsPerNode({ write: (l) => lines.push(l) });
    expect(Object.fromEntries(table)).toEqual({
      '(no node)': row(1, 1, 1, 0), // the unscheduled pod, and node-b's two pods after node-b went
      'node-a': row(0, 2, 0, 0),
      'node-c': row(1, 1, 0, 1), // cache-1 was recreated here (Pending)
    });
    const text = lines.join('\n');
    // The table was printed between the steps, e.g. node-a with its three pods Running before cache-1 moved.
    expect(text).toMatch(/node-a +0 +3 +0 +0 +0 +3/);
    expect(text).toMatch(/node-b +0 +1 +1 +0 +0 +2/);
    expect(text.indexOf('node-b is removed')).toBeGreaterThan(0);
  }, 60_000);

  it('with a client (a cluster), runs until its signal aborts', async () => {
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const stop = new AbortController();
    try {
      server.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
      server.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'kube-system' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } });
      const lines: string[] = [];
      const run = runPodsPerNode({ client, signal: stop.signal, write: (l) => lines.push(l) });
      const deadline = Date.now() + 10_000;
      while (!lines.some((l) => /n1 +1 +0/.test(l))) {
        if (Date.now() > deadline) throw new Error(`no table: ${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      stop.abort();
      expect(Object.fromEntries(await run)).toEqual({ n1: row(1, 0, 0, 0) });
    } finally {
      stop.abort();
      client.close();
      await server.close();
    }
  }, 30_000);

  it(
    'podsPerNode on fake informers, in virtual time: the first table waits for both lists, then one per settled burst',
    marbles((m) => {
      const node = (name: string): K8s.Node => ({ metadata: { name, resourceVersion: '1' } });
      const pod = (name: string, nodeName: string, phase = 'Running'): K8s.Pod => ({
        metadata: { name, namespace: 'default', resourceVersion: '1' },
        spec: { nodeName, containers: [] },
        status: { phase },
      });
      const nodes = fakeInformer({ initial: [node('n1'), node('n2')], listed$: m.cold('----x'), events$: m.hot('------------d', { d: deleted(node('n2')) }) });
      const pods = fakeInformer({
        initial: [pod('a', 'n1'), pod('b', 'n2')],
        listed$: m.cold('--x'),
        events$: m.hot('-------(cd)', { c: added(pod('c', 'n1', 'Pending')), d: added(pod('d', '', 'Pending')) }),
      });
      const text = (t: Table) => [...t].map(([n, c]) => `${n}:${c['Pending']}/${c['Running']}`).sort().join(' ');
      // settleMs 2: a snapshot change opens a 2-frame window (auditTime).
      m.expect(podsPerNode(nodes, pods, 2).pipe(map(text)), '^-------------------!').toBeObservable('------A--B----C-----', {
        A: 'n1:0/1 n2:0/1',
        B: '(no node):1/0 n1:1/1 n2:0/1',
        C: '(no node):1/1 n1:1/1',
      });
    }),
  );

  it('renders rows sorted by node with a total column', () => {
    const t: Table = new Map([
      ['n2', row(0, 1, 0, 0)],
      ['n1', row(2, 0, 0, 1)],
    ]);
    expect(renderTable(t).split('\n')).toEqual([
      'NODE  PENDING  RUNNING  SUCCEEDED  FAILED  UNKNOWN  TOTAL',
      'n1    2        0        0          1       0        3',
      'n2    0        1        0          0       0        1',
    ]);
  });
});
