/**
 * Tier 2: listWatch over real HTTP (KubeClient's HttpListWatcher) against the embedded API server
 * with its fault injection. Real time, so backoffs are shortened through options. Every case runs
 * over both transports (the Node.js KubeConnection and the FetchConnection), which must behave
 * alike.
 */
import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import type { KubeClient } from '../../src/client/kube-client.js';
import { listWatchResource } from '../../src/reflector/list-watch-resource.js';
import type { ListWatchOptions } from '../../src/reflector/list-watch-options.js';
import { ReflectorFatalError, WatchStalledError } from '../../src/reflector/reflector-errors.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { type ApiServer, type ApiServerOptions, startApiServer } from '@rxkube/testkit';
import { Mirror, sleep, waitFor } from './mirror.js';
import { type Transport, TRANSPORTS } from '../helpers/transports.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string, namespace = 'default'): UnstructuredObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { v: name } });

interface Setup {
  server: ApiServer;
  client: KubeClient;
  mirror: Mirror;
  statuses: ReflectorStatus[];
  error: () => unknown;
  lists: () => number;
  watches: () => number;
  serverState: () => KubeObject[];
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe.each(TRANSPORTS)('listWatch over HTTP (embedded API server), $name', (transport: Transport) => {
  async function setup(serverOptions: ApiServerOptions = {}, options: ListWatchOptions = {}, seed = 20): Promise<Setup> {
    const server = await startApiServer({ token: true, tls: transport.tls, bookmarkIntervalMs: 200, ...serverOptions });
    server.seed(Array.from({ length: seed }, (_, i) => cm(`seed-${i}`)));
    return watchConfigMaps(server, options);
  }

  /** Mirrors the server's default-namespace ConfigMaps through a reflector; cleaned up after the test. */
  function watchConfigMaps(server: ApiServer, options: ListWatchOptions = {}): Setup {
    const client = transport.client(server);
    const mirror = new Mirror();
    const statuses: ReflectorStatus[] = [];
    let error: unknown;
    // List + watch unless a test asks for the default (streaming lists): most tests here count lists.
    const sub: Subscription = listWatchResource(client, CM, { namespace: 'default' }, {
      backoff: { initialMs: 50, maxMs: 400 },
      streamingList: false,
      ...options,
      status: { next: (s) => statuses.push(s) },
    }).subscribe({ next: mirror.apply, error: (e: unknown) => (error = e) });
    cleanup.push(
      () => sub.unsubscribe(),
      () => client.close(),
      () => server.close(),
    );
    return {
      server,
      client,
      mirror,
      statuses,
      error: () => error,
      lists: () => server.requests.count({ resourceId: '/configmaps', watch: false, method: 'GET' }),
      watches: () => server.requests.count({ resourceId: '/configmaps', watch: true }),
      serverState: () => server.list('v1', 'ConfigMap', 'default'),
    };
  }

  async function converges(s: Setup, what: string): Promise<void> {
    await waitFor(() => s.mirror.matches(s.serverState()), 10_000, what);
    expect(s.error()).toBeUndefined();
    expect(s.mirror.anomalies).toEqual([]);
  }

  it(`lists and watches ${transport.tls ? 'over TLS with a CA and' : 'with'} a bearer token`, async () => {
    const s = await setup();
    await waitFor(() => s.mirror.replaces === 1, 10_000, 'replace');
    s.server.create(cm('new-1'));
    const seeded = s.server.get('v1', 'ConfigMap', 'seed-3', 'default')!;
    s.server.update({ ...seeded, data: { v: 'changed' } });
    s.server.delete('v1', 'ConfigMap', 'seed-4', 'default');
    s.server.create(cm('elsewhere', 'kube-system'));
    await converges(s, 'changes');
    expect(s.mirror.state.has('kube-system/elsewhere')).toBe(false);
    expect(s.lists()).toBe(1);
    expect(s.server.requests.filter({ resourceId: '/configmaps', watch: true })[0]?.search).toMatch(/allowWatchBookmarks=true/);
  });

  it('re-watches without relisting after clean and abrupt watch drops', async () => {
    const s = await setup();
    await waitFor(() => s.mirror.replaces === 1 && s.server.openWatches('/configmaps') === 1, 10_000, 'watching');
    await sleep(1_100); // past the very-short-watch threshold
    s.server.faults.dropWatches({ resourceId: '/configmaps' });
    s.server.create(cm('after-clean-drop'));
    await waitFor(() => s.watches() >= 2, 5_000, 'second watch');
    await sleep(1_100);
    s.server.faults.dropWatches({ resourceId: '/configmaps', abrupt: true });
    s.server.create(cm('after-abrupt-drop'));
    await waitFor(() => s.watches() >= 3, 5_000, 'third watch');
    await converges(s, 'after drops');
    expect(s.lists()).toBe(1);
    expect(s.mirror.replaces).toBe(1);
  });

  it('relists after a 410 ERROR event during the watch', async () => {
    const s = await setup();
    await waitFor(() => s.server.openWatches('/configmaps') === 1, 10_000, 'watching');
    s.server.faults.injectWatchError({ code: 410, reason: 'Expired', message: 'too old resource version' }, { resourceId: '/configmaps' });
    s.server.create(cm('after-410'));
    await waitFor(() => s.mirror.replaces === 2, 5_000, 'relist');
    await converges(s, 'after 410');
    // the first expiry after a healthy watch relists at once
    expect(s.statuses.some((x) => x.type === 'error' && x.action === 'relist')).toBe(true);
    expect(s.statuses.some((x) => x.type === 'backingOff' && x.next === 'relist')).toBe(false);
  });

  it('relists when the resume version was compacted away', async () => {
    const s = await setup({ bookmarkIntervalMs: 0 });
    await waitFor(() => s.server.openWatches('/configmaps') === 1, 10_000, 'watching');
    await sleep(1_100);
    // move the global RV on where the reflector does not look, forget history, drop the watch
    for (let i = 0; i < 5; i++) s.server.create(cm(`other-${i}`, 'kube-system'));
    s.server.faults.compact();
    s.server.create(cm('after-compaction'));
    await waitFor(() => s.mirror.state.has('default/after-compaction'), 5_000, 'event before drop');
    s.server.faults.compact();
    for (let i = 5; i < 10; i++) s.server.create(cm(`other-${i}`, 'kube-system'));
    s.server.faults.compact();
    s.server.faults.dropWatches({ resourceId: '/configmaps' });
    await waitFor(() => s.mirror.replaces === 2, 5_000, 'relist after 410');
    await converges(s, 'after compaction');
    expect(s.statuses.some((x) => x.type === 'error' && (x.error as { statusCode?: number }).statusCode === 410)).toBe(true);
  });

  it('backs off through a burst of 500s on list and honours Retry-After on 429s on watch', async () => {
    const b = await setupWithFaults((server) => {
      server.faults.failNext({ code: 500, count: 3, watch: false, path: /configmaps/ });
      server.faults.failNext({ code: 429, count: 2, watch: true, retryAfterSeconds: 1 });
    });
    await waitFor(() => b.server.openWatches('/configmaps') === 1, 15_000, 'watching after bursts');
    const backoffs = b.statuses.filter((x) => x.type === 'backingOff');
    expect(backoffs.filter((x) => x.next === 'relist')).toHaveLength(3);
    expect(backoffs.filter((x) => x.next === 'rewatch').map((x) => x.delayMs >= 1_000)).toEqual([true, true]);
    const watchTimes = b.server.requests.filter({ resourceId: '/configmaps', watch: true }).map((r) => r.time);
    expect(watchTimes).toHaveLength(3);
    expect(watchTimes[1]! - watchTimes[0]!).toBeGreaterThanOrEqual(950);
    expect(b.server.requests.count({ resourceId: '/configmaps', watch: false })).toBe(4); // 3 failures + 1
    await converges(b, 'after bursts');
  });

  it('treats a frozen watch as dead (idle timeout) and recovers once the server unfreezes', async () => {
    const s = await setup({}, { idleTimeoutMs: 800 });
    await waitFor(() => s.server.openWatches('/configmaps') === 1, 10_000, 'watching');
    s.server.faults.freezeWatches();
    s.server.create(cm('while-frozen'));
    await waitFor(() => s.statuses.some((x) => x.type === 'error' && x.error instanceof WatchStalledError), 5_000, 'stall detected');
    s.server.faults.unfreezeWatches();
    await converges(s, 'after unfreeze');
    expect(s.lists()).toBe(1);
  });

  it('rides out a server restart with a re-watch (no relist)', async () => {
    const s = await setup();
    await waitFor(() => s.server.openWatches('/configmaps') === 1, 10_000, 'watching');
    await sleep(1_100);
    await s.server.faults.restart(300);
    s.server.create(cm('after-restart'));
    await converges(s, 'after restart');
    expect(s.lists()).toBe(1);
  });

  it('by default streams the initial state with sendInitialEvents (no list request)', async () => {
    const s = await setup({}, { streamingList: undefined });
    await waitFor(() => s.mirror.replaces === 1, 10_000, 'replace');
    s.server.create(cm('streamed-later'));
    await converges(s, 'streaming list');
    expect(s.lists()).toBe(0);
    expect(s.server.requests.filter({ resourceId: '/configmaps', watch: true })[0]?.search).toMatch(/sendInitialEvents=true/);
  });

  it('errors with ReflectorFatalError when the token is refused (401) past authRetries', async () => {
    const server = await startApiServer({ token: true });
    cleanup.push(() => server.close());
    const client = transport.client(server, { token: 'wrong' });
    cleanup.push(() => client.close());
    const error = await new Promise<unknown>((resolve) => {
      listWatchResource(client, CM, {}, { authRetries: 1, backoff: { initialMs: 20 } }).subscribe({ error: resolve });
    });
    expect(error).toBeInstanceOf(ReflectorFatalError);
    expect((error as Error).cause).toMatchObject({ statusCode: 401 });
    expect(String(error)).not.toContain('wrong');
  });

  async function setupWithFaults(inject: (server: ApiServer) => void): Promise<Setup> {
    const server = await startApiServer({ token: true, bookmarkIntervalMs: 200 });
    server.seed([cm('a'), cm('b')]);
    inject(server);
    return watchConfigMaps(server);
  }
});
