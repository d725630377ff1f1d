/**
 * Cookbook, a live table from `state$` (examples/cookbook/live-table.ts), in virtual time against
 * the in-process cluster: the first table waits for both caches, a burst of changes gives one
 * table, a change nothing shows gives none.
 */
import { describe, expect, it } from 'vitest';
import { resources, type K8s } from 'rxkube';
import { virtualTime } from '@rxkube/testkit';
import { runningPodsPerNamespace } from '../../examples/cookbook/live-table.js';

const pod = (namespace: string, name: string): K8s.Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

describe('cookbook: a live table from state$', () => {
  it('one table per burst, only when it changed', async () => {
    await virtualTime(
      async ({ cluster, scheduler, flush }) => {
        cluster.seed([pod('shop', 'web-1'), pod('shop', 'web-2')]);
        const running = (namespace: string, name: string): void =>
          void cluster.client.objects(resources.pods, namespace).patchStatus(name, { status: { phase: 'Running' } }); // the kubelet's write
        const informers = cluster.informers();
        const tables: [number, string][] = [];
        const sub = runningPodsPerNamespace(informers.namespaces(), informers.pods(), scheduler).subscribe((t) => tables.push([scheduler.now(), t]));
        scheduler.schedule(() => { running('shop', 'web-1'); running('shop', 'web-2'); }, 1_000); // a burst: one table
        scheduler.schedule(() => void cluster.create(pod('ops', 'job-1')), 2_000);
        scheduler.schedule(() => { // a change the table does not show: no table
          const p = cluster.get('v1', 'Pod', 'job-1', 'ops');
          void cluster.update({ ...p, metadata: { ...p?.metadata, labels: { seen: 'yes' } } });
        }, 3_000);
        scheduler.schedule(() => sub.unsubscribe(), 4_000);
        await flush();
        const ns = (lines: string): string => lines.split('\n').filter((l) => /^(ops|shop) /.test(l)).join(', ');
        expect(tables.map(([at, t]) => [at, ns(t)])).toEqual([
          [100, 'ops 0/0, shop 0/2'],
          [1_100, 'ops 0/0, shop 2/2'],
          [2_100, 'ops 0/1, shop 2/2'],
        ]);
      },
      { cluster: { namespaces: ['default', 'shop', 'ops'] } },
    );
  });
});
