/**
 * A multi-cluster controller over a changing fleet, in virtual time (in-process clusters): each
 * cluster is served once its caches synced; a removed cluster's informers stop, its queued keys
 * are dropped, its running reconcile is aborted with a ClusterRemovedError, and no reconcile of it
 * starts after; a rejoined cluster is served again; `changed` replaces; a bad event is skipped.
 */
import { Registry } from 'prom-client';
import { Subject, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ClusterEventError, ClusterRemovedError } from '../../src/controller/cluster-errors.js';
import { CacheSyncTimeoutError } from '../../src/controller/controller-errors.js';
import { clusterSetChanges } from '../../src/controller/cluster-set-changes.js';
import { controller } from '../../src/controller/controller.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import type { ClusterEvent, ClusterTarget } from '../../src/controller/controller-options.js';
import type { Logger } from '../../src/logging/logger.js';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import { inProcessCluster, type InProcessCluster } from '../../packages/testkit/src/in-process-cluster.js';
import { virtualTime } from '../../packages/testkit/src/virtual-time.js';

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: '1' } }) as KubeObject;
const assertDeepEqual = (actual: unknown, expected: unknown): void => void expect(actual).toEqual(expected);

function recordingLogger(lines: { msg: string; fields: Record<string, unknown> }[]): Logger {
  const make = (bound: Record<string, unknown>): Logger =>
    ({
      debug: () => undefined,
      info: (msg: string, fields?: Record<string, unknown>) => void lines.push({ msg, fields: { ...bound, ...fields } }),
      warn: (msg: string, fields?: Record<string, unknown>) => void lines.push({ msg, fields: { ...bound, ...fields } }),
      error: (msg: string, fields?: Record<string, unknown>) => void lines.push({ msg, fields: { ...bound, ...fields } }),
      child: (more: Record<string, unknown>) => make({ ...bound, ...more }),
    }) as unknown as Logger;
  return make({});
}

describe('clusters as a stream', () => {
  it('engages, serves, drops and re-serves clusters as they come and go', async () => {
    await virtualTime(
      async ({ scheduler, advance }) => {
        const east = inProcessCluster({ scheduler });
        const west = inProcessCluster({ scheduler });
        const target = (c: InProcessCluster): ClusterTarget => ({ client: c.client, informers: c.informers() });
        east.seed([cm('a'), cm('b'), cm('c')]);
        west.seed([cm('w')]);
        const events = new Subject<ClusterEvent>();
        const started: string[] = [];
        const abortedWith: unknown[] = [];
        const outcomes: ReconcileOutcome[] = [];
        const lines: { msg: string; fields: Record<string, unknown> }[] = [];
        const registry = new Registry();
        const series = async (name: string): Promise<string[]> =>
          ((await registry.getSingleMetric(name)?.get())?.values ?? []).filter((v) => v.value > 0).map((v) => Object.values(v.labels).join(' ') + ` ${v.value}`).sort();
        const ctl = controller({
          metricsRegistry: registry,
          name: 'fleet',
          for: resources.configMaps,
          clusters: events,
          scheduler,
          needLeaderElection: false,
          logger: recordingLogger(lines),
          readYourWrites: false,
          reconcile: (req, ctx) => {
            started.push(`${req.cluster}/${req.name}@${scheduler.now()}`);
            expect(ctx.object?.metadata?.name).toBe(req.name); // the request's cluster's cache
            return new Promise<void>((resolve) => {
              const t = timer(20, scheduler).subscribe(() => resolve());
              ctx.signal.addEventListener('abort', () => {
                abortedWith.push(ctx.signal.reason);
                t.unsubscribe();
                resolve();
              });
            });
          },
        });
        const ready: boolean[] = [];
        ctl.ready$.subscribe((r) => ready.push(r));
        const sub = ctl.run().subscribe((o) => outcomes.push(o));
        expect(ready).toEqual([false, true]); // ready at once: each cluster waits for its own caches

        events.next({ type: 'added', name: 'east', cluster: target(east) });
        events.next({ type: 'added', name: 'west', cluster: target(west) });
        events.next({ type: 'added', name: 'bad:name', cluster: target(west) });
        await advance(5);
        expect(east.openWatches()).toBe(1);
        expect(west.openWatches()).toBe(1);
        // concurrency 1: one reconcile runs, the other keys of east wait in the queue
        expect(started.length).toBe(1);
        const firstEast = started.find((s) => s.startsWith('east/'));
        expect(firstEast).toBeDefined();
        expect(lines.some((l) => l.fields['err'] instanceof ClusterEventError && String((l.fields['err'] as Error).message).includes('bad:name'))).toBe(true);

        // east leaves while its first reconcile runs and its other keys are queued
        events.next({ type: 'removed', name: 'east' });
        const removedAt = started.length;
        expect(abortedWith).toHaveLength(1);
        expect(abortedWith[0]).toBeInstanceOf(ClusterRemovedError);
        expect((abortedWith[0] as ClusterRemovedError).cluster).toBe('east');
        await advance(1);
        expect(east.openWatches()).toBe(0); // its informers stopped
        east.create(cm('d')); // churn on a departed cluster
        await advance(200);
        expect(started.slice(removedAt).filter((s) => s.startsWith('east/'))).toEqual([]);
        expect(started.filter((s) => s.startsWith('west/'))).toEqual([expect.stringMatching(/^west\/w@/)]);
        const eastOutcomes = outcomes.filter((o) => o.request.cluster === 'east');
        expect(eastOutcomes.map((o) => o.kind)).toEqual(['aborted']);
        // Per-cluster metrics: a family of its own; the departed cluster's series are gone.
        expect(await series('rxkube_multicluster_reconcile_total')).toEqual(['fleet west success 1']);
        expect(await series('rxkube_multicluster_clusters')).toEqual(['fleet serving 1']);
        expect(await series('controller_runtime_reconcile_total')).toEqual(['fleet success 1']);

        // east rejoins: served again, with everything it holds now
        events.next({ type: 'added', name: 'east', cluster: target(east) });
        await advance(200);
        expect(started.slice(removedAt).filter((s) => s.startsWith('east/')).map((s) => s.split('@')[0]).sort()).toEqual(['east/a', 'east/b', 'east/c', 'east/d']);

        // changed: the old engagement is let go (its watch ends), a new one starts
        const before = started.length;
        const replacement = target(west);
        events.next({ type: 'changed', name: 'west', cluster: replacement });
        await advance(100);
        expect(west.openWatches()).toBe(1);
        expect(started.slice(before)).toEqual([expect.stringMatching(/^west\/w@/)]);
        expect(lines.some((l) => l.msg === 'cluster let go' && l.fields['cluster'] === 'west' && l.fields['why'] === 'replaced')).toBe(true);

        sub.unsubscribe();
        await advance(1);
        expect(east.openWatches() + west.openWatches()).toBe(0);
        east.close();
        west.close();
      },
      { assertDeepEqual },
    );
  });

  it('a cluster whose caches do not sync is reported after cacheSyncTimeoutMs and served once they do; the others are served meanwhile', async () => {
    await virtualTime(
      async ({ scheduler, advance }) => {
        const slow = inProcessCluster({ scheduler });
        const fine = inProcessCluster({ scheduler });
        slow.seed([cm('s')]);
        fine.seed([cm('f')]);
        slow.faults.failNext({ method: 'GET', count: 4, code: 503 }); // its lists fail a while (with backoff)
        const events = new Subject<ClusterEvent>();
        const started: string[] = [];
        const lines: { msg: string; fields: Record<string, unknown> }[] = [];
        const ctl = controller({
          name: 'fleet-sync',
          for: resources.configMaps,
          clusters: events,
          scheduler,
          cacheSyncTimeoutMs: 50,
          needLeaderElection: false,
          logger: recordingLogger(lines),
          reconcile: (req) => void started.push(`${req.cluster}/${req.name}`),
        });
        const sub = ctl.run().subscribe();
        events.next({ type: 'added', name: 'slow', cluster: slow.client });
        events.next({ type: 'added', name: 'fine', cluster: fine.client });
        await advance(60);
        expect(started).toEqual(['fine/f']);
        const timeout = lines.find((l) => l.fields['err'] instanceof CacheSyncTimeoutError);
        expect(timeout?.fields['cluster']).toBe('slow');
        expect((timeout?.fields['err'] as CacheSyncTimeoutError).sources).toEqual([expect.stringMatching(/^slow\//)]);
        await advance(60_000);
        expect(started).toEqual(['fine/f', 'slow/s']);
        sub.unsubscribe();
        slow.close();
        fine.close();
      },
      { assertDeepEqual },
    );
  });

  it('a single-cluster controller has no per-cluster metric families', async () => {
    const registry = new Registry();
    const stop = new AbortController();
    const ctl = controller({
      name: 'single',
      for: fakeSource({ resource: resources.configMaps, initial: [cm('a')] }),
      metricsRegistry: registry,
      needLeaderElection: false,
      reconcile: () => undefined,
    });
    const done = ctl.start(stop.signal);
    await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await done;
    expect((await registry.getSingleMetric('controller_runtime_reconcile_total')?.get())?.values.some((v) => v.value > 0)).toBe(true);
    expect(registry.getSingleMetric('rxkube_multicluster_reconcile_total')).toBeUndefined();
    expect(registry.getSingleMetric('rxkube_multicluster_clusters')).toBeUndefined();
  });

  it('clusterSetChanges diffs successive sets into added, changed and removed', () => {
    const a = { client: {} } as unknown as ClusterTarget;
    const b = { client: {} } as unknown as ClusterTarget;
    const b2 = { client: {} } as unknown as ClusterTarget;
    const sets = new Subject<Record<string, ClusterTarget>>();
    const seen: string[] = [];
    clusterSetChanges(sets).subscribe((e) => seen.push(`${e.type} ${e.name}`));
    sets.next({ a });
    sets.next({ a, b });
    sets.next({ b: b2 });
    sets.next({ b: b2 });
    expect(seen).toEqual(['added a', 'added b', 'removed a', 'changed b']);
  });
});
