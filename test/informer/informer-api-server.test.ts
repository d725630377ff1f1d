/**
 * Tier 2: a factory against the embedded API server over TLS with a token. Three consumers share
 * one list and one watch per resource; churn with watch drops, 500s and a forced 410 relist; at the
 * end the cache, and the state folded from each consumer's notifications, equal the server's.
 * Over both transports (KubeConnection over TLS, FetchConnection over HTTP).
 */
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import type { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';
import { type Transport, TRANSPORTS } from '../helpers/transports.js';

const NS = 'informer-t2';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** name → resourceVersion, folded from notifications; counts impossible transitions. */
class Fold {
  readonly state = new Map<string, string>();
  readonly anomalies: string[] = [];
  apply(e: InformerEvent): void {
    if (e.type === 'delete') {
      const o = e.object;
      const name = o instanceof DeletedFinalStateUnknown ? o.key.split('/')[1] ?? '' : o.metadata?.name ?? '';
      if (!this.state.delete(name)) this.anomalies.push(`delete unknown ${name}`);
      return;
    }
    const name = e.object.metadata?.name ?? '';
    if (e.type === 'add' && this.state.has(name)) this.anomalies.push(`add twice ${name}`);
    if (e.type === 'update' && this.state.get(name) !== e.old.metadata?.resourceVersion) this.anomalies.push(`update from unseen ${name}`);
    this.state.set(name, e.object.metadata?.resourceVersion ?? '');
  }
}

const serverState = (server: ApiServer, kind: string) =>
  new Map(server.list('v1', kind, NS).map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));
const cacheState = (objects: KubeObject[]) =>
  new Map(objects.map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));

async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting for convergence');
    await sleep(20);
  }
}

describe.each(TRANSPORTS)('InformerFactory against the embedded API server, $name', (transport: Transport) => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: transport.tls, bookmarkIntervalMs: 200 });
    client = transport.client(server);
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('one watch per resource for three consumers; caches equal the server after churn and faults', async () => {
    for (let i = 0; i < 20; i++)
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: NS }, data: { v: '0' } });
    server.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p-0', namespace: NS },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    const factory = new InformerFactory(client, {
      namespace: NS,
      listWatch: { backoff: { initialMs: 50, maxMs: 200 }, serverErrorBackoff: { initialMs: 50, maxMs: 200 }, connectionBackoff: { initialMs: 50, maxMs: 200 } },
    });
    const folds = [new Fold(), new Fold(), new Fold()];
    const subs: Subscription[] = [
      factory.configMaps().events$.subscribe((e) => folds[0]?.apply(e)),
      factory.for({ apiVersion: 'v1', kind: 'ConfigMap' }).events$.subscribe((e) => folds[1]?.apply(e)),
      factory.configMaps().listen({ name: 'third' }).events$.subscribe((e) => folds[2]?.apply(e)),
    ];
    const pods = factory.pods();
    const errors: Error[] = [];
    factory.configMaps().errors$.subscribe((e) => errors.push(e));
    factory.start();
    expect(await factory.waitForCacheSync(10_000)).toBe(true);
    await until(() => server.openWatches('/configmaps') === 1 && server.openWatches('/pods') === 1);
    expect(server.requests.count({ resourceId: '/configmaps', watch: true })).toBe(1);
    expect(server.requests.count({ resourceId: '/pods', watch: true })).toBe(1);
    // the initial state came with the watch (a streaming list, the default): no list request
    expect(server.requests.count({ resourceId: '/configmaps', watch: false, method: 'GET' })).toBe(0);
    expect(server.requests.filter({ resourceId: '/configmaps', watch: true })[0]?.search).toMatch(/sendInitialEvents=true/);
    expect(pods.store.size).toBe(1);
    expect(factory.configMaps().store.size).toBe(20);

    // churn with faults
    const configMapWatches = () => server.requests.count({ resourceId: '/configmaps', watch: true });
    for (let round = 0; round < 5; round++) {
      const watchesBefore = configMapWatches();
      for (let i = 0; i < 30; i++) {
        const name = `cm-${(round * 7 + i) % 40}`;
        const existing = server.get('v1', 'ConfigMap', name, NS);
        if (existing === undefined) server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: `${round}` } });
        else if (i % 5 === 0) server.delete('v1', 'ConfigMap', name, NS);
        else server.update({ ...existing, data: { v: `${round}-${i}` } });
      }
      if (round === 1) server.faults.dropWatches({ resourceId: '/configmaps', abrupt: true });
      if (round === 2) {
        server.faults.failNext({ watch: true, path: /configmaps/, code: 500, count: 2 });
        server.faults.dropWatches({ resourceId: '/configmaps' });
      }
      if (round === 3) {
        // the informer's resume version is compacted away: 410, relist
        server.faults.freezeWatches();
        for (let i = 0; i < 40; i++) {
          const o = server.get('v1', 'ConfigMap', `cm-${i}`, NS);
          if (o !== undefined && i % 3 === 0) server.update({ ...o, data: { v: 'f' } });
        }
        server.faults.compact();
        server.faults.dropWatches({ resourceId: '/configmaps' });
        server.faults.unfreezeWatches();
      }
      // A round with faults ends once the informer watches again, so that the next round's faults
      // meet an open watch (a fixed pause let them land before the re-watch on a busy machine).
      if (round >= 1 && round <= 3) await until(() => configMapWatches() > watchesBefore && server.openWatches('/configmaps') === 1);
      else await sleep(100);
    }
    const cms = factory.configMaps();
    await until(() => {
      const want = serverState(server, 'ConfigMap');
      const got = cacheState(cms.store.list());
      return JSON.stringify([...want].sort()) === JSON.stringify([...got].sort());
    });
    const want = serverState(server, 'ConfigMap');
    for (const f of folds) {
      expect(new Map([...f.state].sort())).toEqual(new Map([...want].sort()));
      expect(f.anomalies).toEqual([]);
    }
    // the faults did bite: re-watches after the drops and 500s, a relist after the 410
    const watches = server.requests.count({ resourceId: '/configmaps', watch: true });
    // A full sync is a list or a streaming list (a watch with sendInitialEvents, the default).
    const lists =
      server.requests.count({ resourceId: '/configmaps', watch: false, method: 'GET' }) +
      server.requests.filter({ resourceId: '/configmaps', watch: true }).filter((r) => /sendInitialEvents=true/.test(r.search)).length;
    console.log(`configmaps: ${watches} watch requests, ${lists} full syncs`);
    expect(watches).toBeGreaterThanOrEqual(5);
    expect(lists).toBeGreaterThanOrEqual(2);
    expect(server.requests.count({ resourceId: '/pods', watch: true })).toBe(1);
    // still one watch open per resource, and every informer re-watch was for the shared informer
    expect(server.openWatches('/configmaps')).toBe(1);
    expect(server.openWatches('/pods')).toBe(1);
    // The injected faults are reported as recovered list/watch failures; nothing else went wrong.
    expect(errors.some((e) => e.name === 'ListWatchError')).toBe(true);
    expect(errors.filter((e) => !(e.name === 'InformerSourceError' || e.name === 'ListWatchError'))).toEqual([]);
    for (const s of subs) s.unsubscribe();
    factory.stop();
    await until(() => server.openWatches('/configmaps') === 0 && server.openWatches('/pods') === 0, 5000);
  }, 60_000);

  it('stop grace: a quick resubscribe reuses the list/watch, a late one relists', async () => {
    server.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's-0', namespace: NS } });
    const factory = new InformerFactory(client, { namespace: NS, stopGraceMs: 400 });
    const secrets = factory.secrets();
    // A full sync is a list or a streaming list (a watch with sendInitialEvents, the default).
    const lists = () =>
      server.requests.count({ resourceId: '/secrets', watch: false, method: 'GET' }) +
      server.requests.filter({ resourceId: '/secrets', watch: true }).filter((r) => /sendInitialEvents=true/.test(r.search)).length;
    const watches = () => server.requests.count({ resourceId: '/secrets', watch: true });
    let sub = secrets.events$.subscribe();
    expect(await secrets.waitForSync(10_000)).toBe(true);
    await until(() => server.openWatches('/secrets') === 1);
    sub.unsubscribe();
    await sleep(100);
    const seen: string[] = [];
    sub = secrets.events$.subscribe((e) => seen.push(e.type));
    expect(seen).toEqual(['add']); // replayed from the cache, no request
    expect(lists()).toBe(1);
    expect(watches()).toBe(1);
    sub.unsubscribe();
    await until(() => server.openWatches('/secrets') === 0, 5000);
    expect(secrets.isRunning).toBe(false);
    sub = secrets.events$.subscribe();
    expect(await secrets.waitForSync(10_000)).toBe(true);
    expect(lists()).toBe(2);
    expect(server.requests.count({ resourceId: '/secrets', watch: false, method: 'GET' })).toBe(0); // both were streaming lists
    sub.unsubscribe();
  }, 30_000);
});
