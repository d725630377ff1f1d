import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { activeResources, eventually, settleTo } from './resources.js';

/**
 * Resource hygiene of the HTTP client and the reflector: after unsubscribing (and closing the
 * client), the server sees no open watch and the process holds no extra socket or timer.
 */

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string): UnstructuredObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: name } });

describe('hygiene: client watch and reflector', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ bookmarkIntervalMs: 20 });
    server.seed(Array.from({ length: 50 }, (_, i) => cm(`c${i}`)));
  });
  afterAll(() => server.close());

  it('a client watch: unsubscribing closes the watch on the server; close() leaves no socket or timer', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const lw = client.listWatcher(CM, { namespace: 'default' });
    const page = await firstValueFrom(lw.list({}));
    const sub = lw.watch({ resourceVersion: page.resourceVersion, allowWatchBookmarks: true }).subscribe();
    expect(await eventually(() => server.openWatches('/configmaps') === 1)).toBe(true);
    server.create(cm('during-watch'));
    sub.unsubscribe();
    expect(await eventually(() => server.openWatches() === 0)).toBe(true);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('negative control: an open watch and a live client are seen as leaks', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const sub = client.listWatcher(CM, { namespace: 'default' }).watch({ resourceVersion: String(server.resourceVersion) }).subscribe();
    expect(await eventually(() => server.openWatches() === 1)).toBe(true);
    expect((await settleTo(baseline, 200)).join()).toMatch(/TCPSocketWrap/);
    sub.unsubscribe();
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('a watch that errors (410 ERROR event) or is dropped leaves nothing behind', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const lw = client.listWatcher(CM, { namespace: 'default' });
    server.faults.compact();
    const events = await firstValueFrom(lw.watch({ resourceVersion: '1' }).pipe(toArray()));
    expect(events.map((e) => e.type)).toEqual(['ERROR']);
    const dropped = firstValueFrom(lw.watch({ resourceVersion: String(server.resourceVersion) }).pipe(toArray()));
    expect(await eventually(() => server.openWatches() === 1)).toBe(true);
    server.faults.dropWatches({ abrupt: true });
    await dropped.catch(() => undefined);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('a reflector: after sync, faults and unsubscribe, no open watch, no timer, no socket', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const events$ = listWatch(client.listWatcher(CM, { namespace: 'default' }), { backoff: { initialMs: 5, maxMs: 20 }, idleTimeoutMs: 5_000 });
    const seen: ReflectorEvent[] = [];
    const sub = events$.subscribe((e) => seen.push(e));
    expect(await eventually(() => seen.some((e) => e.type === 'replace') && server.openWatches() === 1)).toBe(true);
    server.faults.failNext({ path: '/api/v1/namespaces/default/configmaps', code: 500, count: 2 });
    server.faults.dropWatches();
    expect(await eventually(() => server.openWatches() === 1)).toBe(true);
    server.create(cm('after-drop'));
    expect(await eventually(() => seen.some((e) => e.type === 'added' && e.object.metadata?.name === 'after-drop'))).toBe(true);
    sub.unsubscribe();
    expect(await eventually(() => server.openWatches() === 0)).toBe(true);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('a reflector unsubscribed while backing off (server down) leaves no timer', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    server.faults.failNext({ path: '/api/v1/namespaces/default/configmaps', code: 503, count: 1000 });
    const statuses: string[] = [];
    const sub = listWatch(client.listWatcher(CM, { namespace: 'default' }), { backoff: { initialMs: 50, maxMs: 200 }, status: { next: (s) => statuses.push(s.type) } }).subscribe();
    expect(await eventually(() => statuses.filter((s) => s === 'backingOff').length >= 2)).toBe(true);
    sub.unsubscribe();
    server.faults.clear();
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });

  it('a reflector stopped mid-list (paged list in flight) leaves no socket', async () => {
    const baseline = activeResources();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    server.faults.latency(100, { path: '/api/v1/namespaces/default/configmaps', watch: false });
    const sub = listWatch(client.listWatcher(CM, { namespace: 'default' }), { pageSize: 5 }).subscribe();
    expect(await eventually(() => server.requests.count({ resourceId: '/configmaps', watch: false }) > 0)).toBe(true);
    sub.unsubscribe();
    server.faults.clear();
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
    expect(server.openWatches()).toBe(0);
  });

  it('the watch events themselves are not retained: the stream completes after take()', async () => {
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const baseline = activeResources();
    const events = await firstValueFrom(
      listWatch(client.listWatcher(CM, { namespace: 'default' })).pipe(filter((e) => e.type === 'replace'), take(1), toArray()),
    );
    expect(events).toHaveLength(1);
    expect(await eventually(() => server.openWatches() === 0)).toBe(true);
    client.close();
    expect(await settleTo(baseline)).toEqual([]);
  });
});
