/**
 * The live dashboard example without a browser: its views on fake informers in virtual time, its
 * browser bundle (no Node module in the graph), and its start-up (page served, scenario moving).
 * The page in a real browser: test/browser/live-dashboard.test.ts.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { K8s } from 'rxkube';
import { added, deleted, fakeInformer, updated } from 'rxkube/testing';
import { buildDashboard } from '../../examples/live-dashboard/build.js';
import { startLiveDashboard } from '../../examples/live-dashboard/main.js';
import { nodeRows, podsPerNode, REVISION, rollouts, type Progress, type Workload } from '../../examples/live-dashboard/page/views.js';
import { marbles } from '../helpers/marbles.js';

const node = (name: string): K8s.Node => ({ metadata: { name, resourceVersion: '1' } });
const pod = (name: string, nodeName: string, phase?: string): K8s.Pod => ({
  metadata: { name, namespace: 'default', resourceVersion: '1' },
  spec: { nodeName, containers: [] },
  ...(phase === undefined ? {} : { status: { phase } }),
});

describe('live dashboard example: views', () => {
  it('counts pods per node and phase, sorted, with pods on no node or a gone node last', () => {
    const rows = nodeRows([node('b'), node('a')], [pod('p1', 'a', 'Running'), pod('p2', 'b'), pod('p3', '', 'Pending'), pod('p4', 'gone', 'Failed'), pod('p5', 'a', 'Weird')]);
    expect(rows.map((r) => [r.node, r.counts.Pending, r.counts.Running, r.counts.Failed, r.pods.join(',')])).toEqual([
      ['a', 1, 1, 0, 'default/p1,default/p5'],
      ['b', 1, 0, 0, 'default/p2'],
      ['(no node)', 1, 0, 1, 'default/p3,default/p4'],
    ]);
  });

  it(
    'podsPerNode waits for both lists, then follows each settled burst',
    marbles((m) => {
      const nodes = fakeInformer({ initial: [node('n1')], listed$: m.cold('--x'), events$: m.hot('--------d', { d: deleted(node('n1')) }) });
      const pods = fakeInformer({ initial: [pod('a', 'n1', 'Running')], listed$: m.cold('-x'), events$: m.hot('-----b', { b: added(pod('b', 'n1')) }) });
      const text = (rows: ReturnType<typeof nodeRows>) => rows.map((r) => `${r.node}:${r.counts.Pending}/${r.counts.Running}`).join(' ');
      m.expect(podsPerNode(nodes, pods, 1).pipe(map(text)), '^-------------!').toBeObservable('---A--B--C-----', {
        A: 'n1:0/1',
        B: 'n1:1/1',
        C: '(no node):1/1',
      });
    }),
  );

  it(
    'rollouts joins Deployments with the ReplicaSets they own, and drops deleted Deployments',
    marbles((m) => {
      const deployment = (name: string, revision: string, replicas: number, rv = '1'): Workload => ({
        metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv, annotations: { [REVISION]: revision } },
        spec: { replicas },
      });
      const replicaSet = (owner: string, revision: string, replicas: number, ready: number, rv = '1'): Workload => ({
        metadata: {
          name: `${owner}-${revision}`, namespace: 'default', uid: `uid-${owner}-${revision}`, resourceVersion: rv, annotations: { [REVISION]: revision },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, uid: `uid-${owner}`, controller: true }],
        },
        status: { replicas, readyReplicas: ready },
      });
      const deployments = fakeInformer<Workload>({
        initial: [deployment('web', '1', 2)],
        listed$: m.cold('-x'),
        events$: m.hot('----u-------d', { u: updated(deployment('web', '1', 2), deployment('web', '2', 2, '2')), d: deleted(deployment('web', '2', 2, '2')) }),
      });
      const replicaSets = fakeInformer<Workload>({
        initial: [replicaSet('web', '1', 2, 2)],
        listed$: m.cold('--x'),
        events$: m.hot('------n--o', { n: added(replicaSet('web', '2', 2, 2)), o: updated(replicaSet('web', '1', 2, 2), replicaSet('web', '1', 0, 0, '2')) }),
      });
      const brief = (p: Progress | undefined) => (p === undefined ? 'none' : `r${p.revision} ${p.ready}/${p.desired} o${p.old} ${p.phase}`);
      m.expect(rollouts(deployments, replicaSets).pipe(map((t) => brief(t.get('default/web')))), '^-------------!').toBeObservable('--a-b-c--d--e-', {
        a: 'r1 2/2 o0 complete',
        b: 'r2 0/2 o2 progressing',
        c: 'r2 2/2 o2 progressing',
        d: 'r2 2/2 o0 complete',
        e: 'none',
      });
    }),
  );
});

describe('live dashboard example: bundle and start-up', () => {
  it('bundles the page into one browser module with no Node module in it', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rxkube-dashboard-build-'));
    try {
      await buildDashboard(out);
      const js = await readFile(join(out, 'app.js'), 'utf8');
      expect(js).not.toMatch(/from\s*["']node:|require\(["']node:|@kubernetes\/client-node/);
      expect(js).toContain('function renderNodes'); // not an empty bundle: the renderer is in it
      expect(await readFile(join(out, 'index.html'), 'utf8')).toContain('src="app.js"');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('serves the page and keeps the scenario moving (a rollout of web, a scale of api)', async () => {
    const lines: string[] = [];
    const dashboard = await startLiveDashboard({ stepMs: 100, nodes: 2, say: (l) => lines.push(l) });
    try {
      const page = await fetch(dashboard.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>rxkube live dashboard</title>');
      const js = await fetch(new URL('app.js', dashboard.url));
      expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      const kubeconfig = await fetch(new URL('../kubeconfig', dashboard.url));
      expect(kubeconfig.status).not.toBe(200);
      const deadline = Date.now() + 30_000;
      while (!lines.some((l) => l.startsWith('api scales'))) {
        if (Date.now() > deadline) throw new Error(`the scenario did not move: ${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const web = await dashboard.client.objects<K8s.Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default').get('web');
      // Rolled out at least once (the scenario goes on meanwhile: web:2, web:3, …).
      expect(web.spec?.template.spec?.containers[0]?.image).toMatch(/^web:([2-9]|\d{2,})$/);
      expect(lines.filter((l) => l.startsWith('step failed'))).toEqual([]);
    } finally {
      await dashboard.stop();
    }
  }, 90_000);
});
