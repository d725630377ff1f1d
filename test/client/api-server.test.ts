/**
 * Tier 2: the client over real HTTP against the embedded API server (src/testing).
 */
import { firstValueFrom, lastValueFrom, takeWhile, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ApiError, isAlreadyExists, isConflict, isNotFound } from '../../src/client/api-error.js';
import { UnknownResourceError } from '../../src/client/discovery.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { NetworkError } from '../../src/client/network-error.js';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { startApiServer } from '@rxkube/testkit';

type ApiServer = Awaited<ReturnType<typeof startApiServer>>;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const TOKEN = 'embedded-token-7c1e';

interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}

describe('client against the embedded API server (token + TLS)', () => {
  let server: ApiServer;
  let client: KubeClient;

  beforeAll(async () => {
    server = await startApiServer({ token: TOKEN, tls: true, namespaces: ['default', 'paging', 'watching', 'errors', 'crd', 'burst'] });
    client = KubeClient.fromKubeConfig(server.kubeConfig);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('speaks TLS verified by the CA in its kubeconfig and sends the token', async () => {
    expect(server.url.startsWith('https://')).toBe(true);
    const cluster = server.kubeConfig.getCurrentCluster();
    expect(cluster?.skipTLSVerify).toBeFalsy();
    await expect(client.objects(CM, 'default').list()).resolves.toMatchObject({ items: [] });
  });

  it('answers 401 without the token', async () => {
    const kc = server.kubeConfig;
    const name = kc.getCurrentUser()?.name;
    const { KubeConfig } = await import('@kubernetes/client-node');
    const copy = new KubeConfig();
    copy.loadFromOptions({
      clusters: kc.clusters,
      contexts: kc.contexts,
      currentContext: kc.currentContext,
      users: kc.users.map((u) => (u.name === name ? { ...u, token: undefined } : u)),
    });
    const anonymous = KubeClient.fromKubeConfig(copy);
    try {
      const err = await anonymous.objects(CM, 'default').get('x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).statusCode).toBe(401);
    } finally {
      anonymous.close();
    }
  });

  it('refuses the server without its CA', async () => {
    const kc = server.kubeConfig;
    const { KubeConfig } = await import('@kubernetes/client-node');
    const copy = new KubeConfig();
    copy.loadFromOptions({
      clusters: kc.clusters.map((c) => ({ name: c.name, server: c.server, skipTLSVerify: false })),
      contexts: kc.contexts,
      currentContext: kc.currentContext,
      users: kc.users,
    });
    const untrusting = KubeClient.fromKubeConfig(copy);
    try {
      expect(await untrusting.objects(CM, 'default').get('x').catch((e: unknown) => e)).toBeInstanceOf(NetworkError);
    } finally {
      untrusting.close();
    }
  });

  it('lists in pages with label and field selectors', async () => {
    const cms = client.objects<ConfigMap>(CM, 'paging');
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 ? 'odd' : 'even' } } }),
      ),
    );
    const lw = client.listWatcher<ConfigMap>(CM, { namespace: 'paging' });
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    const versions = new Set<string>();
    do {
      const page = await firstValueFrom(lw.list(token === undefined ? { limit: 10 } : { limit: 10, continue: token }));
      names.push(...page.items.map((i) => i.metadata?.name ?? ''));
      versions.add(page.resourceVersion);
      token = page.continue;
      pages++;
    } while (token !== undefined);
    expect(pages).toBe(3);
    expect(versions.size).toBe(1);
    expect(names).toHaveLength(25);
    expect(new Set(names).size).toBe(25);

    const odd = await firstValueFrom(client.listWatcher<ConfigMap>(CM, { namespace: 'paging', labelSelector: 'parity=odd' }).list({}));
    expect(odd.items).toHaveLength(12);
    const one = await firstValueFrom(client.listWatcher<ConfigMap>(CM, { namespace: 'paging', fieldSelector: 'metadata.name=cm-07' }).list({}));
    expect(one.items.map((i) => i.metadata?.name)).toEqual(['cm-07']);
    const all = await client.objects<ConfigMap>(CM, 'paging').list({ limit: 4, labelSelector: 'parity=even' });
    expect(all.items).toHaveLength(13);
  });

  it('watches changes made by another client, from a list resourceVersion', async () => {
    const lw = client.listWatcher<ConfigMap>(CM, { namespace: 'watching' });
    const start = await firstValueFrom(lw.list({}));
    const events = lastValueFrom(
      lw.watch({ resourceVersion: start.resourceVersion, allowWatchBookmarks: true }).pipe(
        takeWhile((e) => e.type !== 'DELETED', true),
        toArray(),
      ),
    );
    events.catch(() => undefined); // awaited below; keeps an early failure from going unhandled
    const writer = KubeClient.fromKubeConfig(server.kubeConfig);
    try {
      const cms = writer.objects<ConfigMap>(CM, 'watching');
      const created = await cms.create({ metadata: { name: 'w' }, data: { v: '1' } });
      await cms.replace({ ...created, data: { v: '2' } });
      await cms.delete('w');
      const got = (await events).filter((e): e is WatchEvent<ConfigMap> => e.type !== 'BOOKMARK');
      expect(got.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(got.map((e) => (e.object as ConfigMap).data?.v)).toEqual(['1', '2', '2']);
    } finally {
      writer.close();
    }
  });

  it('answers 404, 409 Conflict and AlreadyExists as typed ApiErrors', async () => {
    const cms = client.objects<ConfigMap>(CM, 'errors');
    expect(isNotFound(await cms.get('missing').catch((e: unknown) => e))).toBe(true);
    const created = await cms.create({ metadata: { name: 'c' }, data: { a: '1' } });
    expect(isAlreadyExists(await cms.create({ metadata: { name: 'c' } }).catch((e: unknown) => e))).toBe(true);
    await cms.replace({ ...created, data: { a: '2' } });
    const stale = await cms.replace({ ...created, data: { a: 'stale' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    expect((stale as ApiError).status.kind).toBe('Status');
    const patched = await cms.patch('c', { data: { b: '3' } });
    expect(patched.data).toEqual({ a: '2', b: '3' });
  });

  it('discovers a CRD once installed and serves its objects and status', async () => {
    const ref = { apiVersion: 'example.com/v1', kind: 'Widget' };
    await expect(client.resolve(ref)).rejects.toSatisfy((e: unknown) => e instanceof UnknownResourceError || isNotFound(e));
    await client.objects({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }).create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    let resolved: unknown;
    for (let i = 0; i < 50 && resolved === undefined; i++) {
      resolved = await client.resolve(ref).catch(() => undefined);
      if (resolved === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(resolved).toEqual({ ...ref, plural: 'widgets', namespaced: true });
    const widgets = client.objects<KubeObject & { spec?: unknown; status?: unknown }>(ref, 'crd');
    const w = await widgets.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } });
    const withStatus = await widgets.replaceStatus({ ...w, status: { ready: false } });
    expect(withStatus.status).toEqual({ ready: false });
    expect((await widgets.patchStatus('w1', { status: { ready: true } })).status).toEqual({ ready: true });
    const page = await firstValueFrom(client.listWatcher(ref, { namespace: 'crd' }).list({}));
    expect(page.items.map((i) => i.metadata?.name)).toEqual(['w1']);
  });

  it('delivers every event of a 20,000-object burst over one watch, in order', async () => {
    const lw = client.listWatcher<ConfigMap>(CM, { namespace: 'burst' });
    const start = await firstValueFrom(lw.list({}));
    let n = 0;
    let lastRv = 0n;
    let ordered = true;
    const t0 = performance.now();
    const done = lastValueFrom(
      lw.watch({ resourceVersion: start.resourceVersion }).pipe(
        takeWhile((e) => {
          if (e.type === 'ADDED') {
            n++;
            const rv = BigInt(String(e.object.metadata?.resourceVersion));
            ordered &&= rv > lastRv;
            lastRv = rv;
          }
          return n < 20_000;
        }, true),
      ),
    );
    done.catch(() => undefined);
    for (let i = 0; i < 200 && server.requests.count({ watch: true, path: /burst/ }) === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    server.seed(
      Array.from({ length: 20_000 }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `b-${i}`, namespace: 'burst', labels: { app: 'burst' } },
        data: { i: String(i), pad: 'x'.repeat(200) },
      })),
    );
    await done;
    const seconds = (performance.now() - t0) / 1000;
    expect(n).toBe(20_000);
    expect(ordered).toBe(true);
    console.info(`watch burst: 20000 events in ${seconds.toFixed(2)} s (${Math.round(20_000 / seconds)} events/s end to end, TLS)`);
  });

  describe('faults, as the transport reports them', () => {
    const lw = (): ReturnType<KubeClient['listWatcher']> => client.listWatcher(CM, { namespace: 'default' });
    /** Repeats `act` (which returns how many open watches it hit) until it hits one. */
    const onceWatching = async (act: () => number): Promise<number> => {
      for (let i = 0; i < 400; i++) {
        const n = act();
        if (n > 0) return n;
        await new Promise((r) => setTimeout(r, 5));
      }
      return 0;
    };

    it('a 429 burst carries Retry-After; a 500 carries a Status', async () => {
      server.faults.failNext({ code: 429, retryAfterSeconds: 4, watch: false, count: 1 });
      const throttled = await firstValueFrom(lw().list({})).catch((e: unknown) => e);
      expect(throttled).toMatchObject({ name: 'ApiError', statusCode: 429, reason: 'TooManyRequests', retryAfterSeconds: 4 });
      server.faults.failNext({ code: 500, watch: true });
      const broken = await firstValueFrom(lw().watch({})).catch((e: unknown) => e);
      expect(broken).toMatchObject({ name: 'ApiError', statusCode: 500, status: { kind: 'Status', code: 500 } });
      server.faults.clear();
    });

    it('an ERROR 410 event passes through as an event, then the watch completes', async () => {
      const events = lastValueFrom(lw().watch({ resourceVersion: String(server.resourceVersion) }).pipe(toArray()));
      const hit = await onceWatching(() =>
        server.faults.injectWatchError({ code: 410, reason: 'Expired', message: 'too old resource version' }, { resourceId: '/configmaps' }),
      );
      expect(hit).toBe(1);
      const got = await events;
      expect(got.at(-1)).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    });

    it('a cleanly dropped watch completes; an abruptly dropped one errors with NetworkError', async () => {
      const clean = lastValueFrom(lw().watch({}).pipe(toArray()));
      expect(await onceWatching(() => server.faults.dropWatches({ resourceId: '/configmaps' }))).toBe(1);
      await expect(clean).resolves.toBeDefined();
      const abrupt = lastValueFrom(lw().watch({}).pipe(toArray()));
      abrupt.catch(() => undefined);
      expect(await onceWatching(() => server.faults.dropWatches({ resourceId: '/configmaps', abrupt: true }))).toBe(1);
      await expect(abrupt).rejects.toBeInstanceOf(NetworkError);
    });

    it('a watch from a compacted resourceVersion is answered 410', async () => {
      const cms = client.objects<ConfigMap>(CM, 'default');
      const old = String(server.resourceVersion);
      await cms.create({ metadata: { name: 'bump' } });
      server.faults.compact();
      const res = await firstValueFrom(lw().watch({ resourceVersion: old })).catch((e: unknown) => e);
      // kube-apiserver answers with an ERROR event in a 200 stream; either way the Status says 410.
      const code = res instanceof ApiError ? res.statusCode : (res as WatchEvent).type === 'ERROR' ? ((res as WatchEvent).object as { code?: number }).code : undefined;
      expect(code).toBe(410);
    });
  });
});
