/**
 * Tier 3: the reflector against a real kube-apiserver (token auth, TLS with its CA), started by
 * shared/kube-apiserver/start.sh. KUBECONFIG points at it, RXKUBE_E2E_DIR is its folder and
 * RXKUBE_E2E_SHARED the shared folder holding kube-apiserver/restart.sh.
 *
 * One long scenario: a reflector on one namespace while a second client churns configmaps in it;
 * kube-apiserver is restarted mid-watch; then a 410 is forced (writes elsewhere move the global
 * resourceVersion past the reflector's, etcd is compacted, kube-apiserver restarts, so the resume
 * version is older than anything the server keeps). At the end, folding the reflector's events
 * must give exactly the server's configmaps: nothing lost, nothing extra.
 */
import { randomBytes } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { isExpired } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { listWatchResource } from '../../src/reflector/list-watch-resource.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { hasCluster, sleep, restartApiServer, compactEtcd } from './helpers/cluster.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

/** Folds reflector events into name → resourceVersion and counts impossible transitions. */
class Mirror {
  readonly state = new Map<string, string>();
  anomalies: string[] = [];
  replaces = 0;
  apply(e: ReflectorEvent<KubeObject>): void {
    const name = (o: KubeObject) => o.metadata?.name ?? '';
    const rv = (o: KubeObject) => o.metadata?.resourceVersion ?? '';
    switch (e.type) {
      case 'replace':
        this.replaces += 1;
        this.state.clear();
        for (const o of e.items) this.state.set(name(o), rv(o));
        return;
      case 'added':
        if (this.state.has(name(e.object))) this.anomalies.push(`added twice: ${name(e.object)}`);
        this.state.set(name(e.object), rv(e.object));
        return;
      case 'modified':
        if (!this.state.has(name(e.object))) this.anomalies.push(`modified unknown: ${name(e.object)}`);
        this.state.set(name(e.object), rv(e.object));
        return;
      case 'deleted':
        if (!this.state.delete(name(e.object))) this.anomalies.push(`deleted unknown: ${name(e.object)}`);
        return;
      case 'bookmark':
        return;
    }
  }
}

describe.skipIf(!hasCluster)('reflector against a real kube-apiserver', () => {
  let watcher: KubeClient;
  let writer: KubeClient;
  const ns = `rxkube-refl-${randomBytes(3).toString('hex')}`;
  const other = `${ns}-other`;

  beforeAll(async () => {
    watcher = KubeClient.fromDefault();
    writer = KubeClient.fromDefault();
    for (const name of [ns, other]) {
      await writer.objects(NAMESPACE).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  });

  afterAll(async () => {
    for (const name of [ns, other]) await writer?.objects(NAMESPACE).delete(name).catch(() => undefined);
    watcher?.close();
    writer?.close();
  });

  it('rebuilds exactly the server state through churn, an apiserver restart and a forced 410', async () => {
    const cms = writer.objects(CONFIGMAP, ns);
    const elsewhere = writer.objects(CONFIGMAP, other);
    for (let i = 0; i < 40; i++) await cms.create({ metadata: { name: `pre-${i}` }, data: { v: '0' } });

    const mirror = new Mirror();
    const statuses: ReflectorStatus[] = [];
    let streamError: unknown;
    const sub: Subscription = listWatchResource(watcher, CONFIGMAP, { namespace: ns }, {
      backoff: { maxMs: 4_000 },
      status: { next: (s) => statuses.push(s) },
    }).subscribe({ next: (e) => mirror.apply(e), error: (e: unknown) => (streamError = e) });

    const t0 = Date.now();
    const phases: string[] = [];
    const mark = (what: string) => phases.push(`${what} @${((Date.now() - t0) / 1000).toFixed(1)}s`);
    try {
      await waitFor(() => mirror.replaces >= 1, 30_000, 'first replace');
      mark('first replace');

      // churn: create, update and delete from a second client, tolerating the restart windows
      let stop = false;
      let ops = 0;
      const churn = (async () => {
        let n = 0;
        while (!stop) {
          n += 1;
          const name = `c-${Math.floor(Math.random() * 30)}`;
          const op = Math.floor(Math.random() * 3);
          try {
            if (op === 0) await cms.create({ metadata: { name }, data: { v: String(n) } });
            else if (op === 1) await cms.patch(name, { data: { v: String(n) } });
            else await cms.delete(name);
            ops += 1;
          } catch {
            await sleep(50); // AlreadyExists / NotFound / server down: the server's state is what counts
          }
        }
      })();

      await waitFor(() => ops >= 100, 60_000, '100 churn operations');
      const restartsBefore = mirror.replaces;
      mark('restart');
      await restartApiServer(2);
      mark('apiserver ready');
      await waitFor(() => ops >= 250, 90_000, 'churn after restart');
      mark('churn done');

      // force a 410: pause churn, move the global RV on elsewhere, compact etcd, restart
      stop = true;
      await churn;
      await sleep(500);
      for (let i = 0; i < 30; i++) await elsewhere.create({ metadata: { name: `bump-${i}` } });
      const compactedAt = await compactEtcd();
      expect(compactedAt).toBeGreaterThan(0);
      const expiredBefore = statuses.filter((s) => s.type === 'error' && isExpired(s.error)).length;
      await restartApiServer(1);
      mark('compacted + restarted');
      await waitFor(
        () => statuses.filter((s) => s.type === 'error' && isExpired(s.error)).length > expiredBefore,
        60_000,
        '410 after compaction + restart',
      );

      mark('410 seen');
      // some more changes after recovery, then compare
      for (let i = 0; i < 20; i++) await cms.create({ metadata: { name: `post-${i}` }, data: { v: 'x' } });
      await cms.delete('pre-0');
      const expected = async () => new Map((await cms.list()).items.map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));
      let server = await expected();
      await waitFor(() => sameMap(mirror.state, server), 60_000, 'mirror converges');
      mark(`converged (${ops} churn ops, ${mirror.replaces} replaces)`);
      console.info(`reflector e2e phases: ${phases.join(', ')}`);
      server = await expected();
      expect(sameMap(mirror.state, server)).toBe(true);
      expect(mirror.state.size).toBe(server.size);
      expect(mirror.anomalies).toEqual([]);
      expect(mirror.replaces).toBeGreaterThan(restartsBefore); // the 410 relisted
      expect(streamError).toBeUndefined();
      expect(statuses.some((s) => s.type === 'backingOff')).toBe(true);
    } finally {
      sub.unsubscribe();
    }
  });

  it('lists 1200 configmaps in pages and keeps watching them', async () => {
    const bulk = writer.objects(CONFIGMAP, other);
    const names = Array.from({ length: 1200 }, (_, i) => `bulk-${i}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < names.length) await bulk.create({ metadata: { name: names[next++] as string } }).catch(() => undefined);
      }),
    );
    const mirror = new Mirror();
    const statuses: ReflectorStatus[] = [];
    const sub = listWatchResource(watcher, CONFIGMAP, { namespace: other }, { pageSize: 250, status: { next: (s) => statuses.push(s) } }).subscribe(
      (e) => mirror.apply(e),
    );
    try {
      await waitFor(() => mirror.replaces === 1, 60_000, 'paged replace');
      // RV "0" lists may be served whole from the watch cache; the request still asks for pages
      expect(statuses.find((s) => s.type === 'listing')).toMatchObject({ resourceVersion: '0', limit: 250 });
      expect(mirror.state.size).toBeGreaterThanOrEqual(1200);
      await bulk.delete('bulk-0');
      await waitFor(() => !mirror.state.has('bulk-0'), 30_000, 'delete seen');
      expect(mirror.anomalies).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });
});

function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
