/**
 * Tier 3: an InformerFactory against a real kube-apiserver (started by shared/kube-apiserver;
 * KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED set by .ci/run). Built-in resources only
 * (configmaps, pods): this kube-apiserver build crashes when a custom object is written.
 *
 * Three consumers on one factory share one informer per resource, hence one list and one watch per
 * resource (counted with a wrapping ListWatcher, the server has no request counter). Then churn
 * from a second client and a kube-apiserver restart; at the end each cache, and the state folded
 * from each consumer's notifications, equal the server's.
 */
import { randomBytes } from 'node:crypto';
import { type Subscription, tap } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import type { ListWatcher } from '../../src/api/list-watcher.js';
import type { ResourceType } from '../../src/api/resource.js';
import { hasCluster, sleep, restartApiServer } from './helpers/cluster.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const POD = { apiVersion: 'v1', kind: 'Pod' } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Counts list and watch requests per kind made through the wrapped transports. */
class RequestCounter {
  readonly lists = new Map<string, number>();
  readonly watches = new Map<string, number>();
  /** Watches asking for a streaming list (`sendInitialEvents`); kube-apiserver 1.20 refuses them. */
  readonly streamingLists = new Map<string, number>();
  wrap(kind: string, lw: ListWatcher): ListWatcher {
    const bump = (m: Map<string, number>) => m.set(kind, (m.get(kind) ?? 0) + 1);
    return {
      ...(lw.supportsStreamingList === undefined ? {} : { supportsStreamingList: lw.supportsStreamingList }),
      list: (o) => lw.list(o).pipe(tap({ subscribe: () => (o.continue ? undefined : bump(this.lists)) })),
      watch: (o) => lw.watch(o).pipe(tap({ subscribe: () => bump(o.sendInitialEvents === true ? this.streamingLists : this.watches) })),
    };
  }
}

/** name → resourceVersion folded from notifications, with impossible transitions recorded. */
class Fold {
  readonly state = new Map<string, string>();
  readonly anomalies: string[] = [];
  apply(e: InformerEvent): void {
    if (e.type === 'delete') {
      const o = e.object;
      const name = o instanceof DeletedFinalStateUnknown ? (o.key.split('/')[1] ?? '') : (o.metadata?.name ?? '');
      if (!this.state.delete(name)) this.anomalies.push(`delete unknown ${name}`);
      return;
    }
    const name = e.object.metadata?.name ?? '';
    if (e.type === 'add' && this.state.has(name)) this.anomalies.push(`add twice ${name}`);
    if (e.type === 'update' && this.state.get(name) !== e.old.metadata?.resourceVersion) this.anomalies.push(`update from unseen ${name}`);
    this.state.set(name, e.object.metadata?.resourceVersion ?? '');
  }
}

const toMap = (objects: readonly KubeObject[]) =>
  new Map(objects.map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));
const same = (a: Map<string, string>, b: Map<string, string>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

describe.skipIf(!hasCluster)('informer factory against a real kube-apiserver', () => {
  let watcher: KubeClient;
  let writer: KubeClient;
  const ns = `rxkube-inf-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    watcher = KubeClient.fromDefault();
    writer = KubeClient.fromDefault();
    await writer.objects(NAMESPACE).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  afterAll(async () => {
    await writer?.objects(NAMESPACE).delete(ns).catch(() => undefined);
    watcher?.close();
    writer?.close();
  });

  it('three consumers share one watch per resource; caches equal the server after churn and a restart', async () => {
    const cms = writer.objects(CONFIGMAP, ns);
    const pods = writer.objects(POD, ns);
    for (let i = 0; i < 30; i++) await cms.create({ metadata: { name: `pre-${i}` }, data: { v: '0' } });
    for (let i = 0; i < 3; i++)
      await pods.create({ metadata: { name: `pod-${i}` }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

    const counter = new RequestCounter();
    const factory = new InformerFactory(
      (resource: ResourceType, scope) => counter.wrap(resource.kind, watcher.listWatcher(resource, scope)),
      { namespace: ns, listWatch: { backoff: { maxMs: 4_000 } } },
    );
    const folds = { cmA: new Fold(), cmB: new Fold(), cmC: new Fold(), podA: new Fold(), podB: new Fold() };
    const subs: Subscription[] = [
      // three "controllers" ask for configmaps, two of them for pods too
      factory.configMaps().events$.subscribe((e) => folds.cmA.apply(e)),
      factory.for(CONFIGMAP).events$.subscribe((e) => folds.cmB.apply(e)),
      factory.configMaps().listen({ name: 'third' }).events$.subscribe((e) => folds.cmC.apply(e)),
      factory.pods().events$.subscribe((e) => folds.podA.apply(e)),
      factory.for(POD).events$.subscribe((e) => folds.podB.apply(e)),
    ];
    factory.start();
    try {
      expect(await factory.waitForCacheSync(30_000)).toBe(true);
      await waitFor(() => (counter.watches.get('ConfigMap') ?? 0) >= 1 && (counter.watches.get('Pod') ?? 0) >= 1, 10_000, 'watches');
      await sleep(500);
      expect(factory.list()).toHaveLength(2);
      // WL-5: the default streaming list is refused by 1.20 (422) once per informer, then list + watch.
      expect(counter.streamingLists.get('ConfigMap')).toBe(1);
      expect(counter.streamingLists.get('Pod')).toBe(1);
      expect(counter.lists.get('ConfigMap')).toBe(1);
      expect(counter.watches.get('ConfigMap')).toBe(1);
      expect(counter.lists.get('Pod')).toBe(1);
      expect(counter.watches.get('Pod')).toBe(1);
      expect(factory.configMaps().store.size).toBe(30);
      expect(factory.lister(factory.pods()).list(ns)).toHaveLength(3);

      // churn from a second client, across a kube-apiserver restart
      let stop = false;
      let ops = 0;
      const churn = (async () => {
        let n = 0;
        while (!stop) {
          n += 1;
          const name = `c-${Math.floor(Math.random() * 25)}`;
          const op = Math.floor(Math.random() * 3);
          try {
            if (op === 0) await cms.create({ metadata: { name }, data: { v: String(n) } });
            else if (op === 1) await cms.patch(name, { data: { v: String(n) } });
            else await cms.delete(name);
            if (n % 10 === 0) await pods.patch(`pod-${n % 3}`, { metadata: { labels: { n: String(n) } } });
            ops += 1;
          } catch {
            await sleep(50);
          }
        }
      })();
      await waitFor(() => ops >= 80, 60_000, '80 churn operations');
      await restartApiServer(2);
      const opsAtRestart = ops;
      await waitFor(() => ops >= opsAtRestart + 80, 90_000, 'churn after restart');
      stop = true;
      await churn;
      await cms.delete('pre-0');

      const serverCms = async () => toMap((await cms.list()).items);
      const serverPods = async () => toMap((await pods.list()).items);
      const wantCms = await serverCms();
      const wantPods = await serverPods();
      await waitFor(
        () => same(toMap(factory.configMaps().store.list()), wantCms) && same(toMap(factory.pods().store.list()), wantPods),
        60_000,
        'caches converge',
      );
      for (const f of [folds.cmA, folds.cmB, folds.cmC]) {
        expect(same(f.state, wantCms)).toBe(true);
        expect(f.anomalies).toEqual([]);
      }
      for (const f of [folds.podA, folds.podB]) {
        expect(same(f.state, wantPods)).toBe(true);
        expect(f.anomalies).toEqual([]);
      }
      // still one informer per resource; the restart cost re-watches of those two only
      expect(factory.list()).toHaveLength(2);
      // the relists after the restart did not ask for a streaming list again
      expect(counter.streamingLists.get('ConfigMap')).toBe(1);
      expect(counter.streamingLists.get('Pod')).toBe(1);
      console.info(
        `informer e2e: ${ops} churn ops; requests ConfigMap list=${counter.lists.get('ConfigMap')} watch=${counter.watches.get('ConfigMap')}, ` +
          `Pod list=${counter.lists.get('Pod')} watch=${counter.watches.get('Pod')}`,
      );
    } finally {
      for (const s of subs) s.unsubscribe();
      factory.stop();
    }
  }, 300_000);
});
