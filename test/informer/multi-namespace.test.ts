/**
 * Multi-namespace informers: `multiNamespaceReflector` (sync only when every namespace listed,
 * later relists scoped to their namespace), the scoped `replace` of the delta queue, and
 * `new InformerFactory(client, { namespaces })` against the embedded API server (one list and one
 * watch per namespace, one merged cache and event stream).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { NEVER, Subject, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListWatcher } from '../../src/api/list-watcher.js';
import type { ResourceType } from '../../src/api/resource.js';
import { DeltaQueue } from '../../src/cache/delta-queue.js';
import { Indexer } from '../../src/cache/indexer.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import type { ListWatchScope } from '../../src/client/http-list-watcher.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { multiNamespaceReflector } from '../../src/informer/multi-namespace.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';

const cm = (ns: string, name: string, rv = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, resourceVersion: rv } });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('DeltaQueue: a replace scoped to a namespace', () => {
  it('deletes only missing objects of that namespace', () => {
    const known = new Indexer({ freeze: 'none' });
    known.add(cm('a', 'x'));
    known.add(cm('b', 'y'));
    known.add(cm('a', 'gone'));
    const q = new DeltaQueue({ knownObjects: known });
    q.apply({ type: 'replace', items: [cm('a', 'x', '2')], namespace: 'a' });
    expect(q.listKeys().sort()).toEqual(['a/gone', 'a/x']);
    expect(q.getDeltas('a/gone')?.[0]?.type).toBe('Deleted');
    q.apply({ type: 'replace', items: [] });
    expect(q.listKeys().sort()).toEqual(['a/gone', 'a/x', 'b/y']);
  });
});

describe('multiNamespaceReflector', () => {
  it('syncs once every namespace listed; events between are folded in; later relists are scoped', () => {
    const a = new Subject<ReflectorEvent>();
    const b = new Subject<ReflectorEvent>();
    const merged = multiNamespaceReflector(new Map([['a', { events$: a, status$: NEVER }], ['b', { events$: b, status$: NEVER }]]));
    const out: ReflectorEvent[] = [];
    merged.events$.subscribe((e) => out.push(e));
    a.next({ type: 'replace', items: [cm('a', '1'), cm('a', '2')], resourceVersion: '10' });
    a.next({ type: 'modified', object: cm('a', '1', '11') });
    a.next({ type: 'deleted', object: cm('a', '2') });
    a.next({ type: 'added', object: cm('a', '3') });
    a.next({ type: 'bookmark', resourceVersion: '12' });
    expect(out).toEqual([]);
    b.next({ type: 'replace', items: [cm('b', '1')], resourceVersion: '13' });
    expect(out).toEqual([{ type: 'replace', items: [cm('a', '1', '11'), cm('a', '3'), cm('b', '1')], resourceVersion: '13' }]);
    a.next({ type: 'added', object: cm('a', '4') });
    b.next({ type: 'replace', items: [], resourceVersion: '20' });
    expect(out.slice(1)).toEqual([
      { type: 'added', object: cm('a', '4') },
      { type: 'replace', items: [], resourceVersion: '20', namespace: 'b' },
    ]);
  });

  it('behind a shared informer: synced only when both listed; a namespace relist keeps the other namespace', async () => {
    const a = new Subject<ReflectorEvent>();
    const b = new Subject<ReflectorEvent>();
    const informer = sharedInformer(multiNamespaceReflector(new Map([['a', { events$: a as Observable<ReflectorEvent>, status$: NEVER }], ['b', { events$: b, status$: NEVER }]])));
    const events: InformerEvent[] = [];
    const sub = informer.events$.subscribe((e) => events.push(e));
    a.next({ type: 'replace', items: [cm('a', '1')], resourceVersion: '1' });
    expect(informer.hasSynced()).toBe(false);
    b.next({ type: 'replace', items: [cm('b', '1'), cm('b', '2')], resourceVersion: '2' });
    await until(() => informer.hasSynced() && events.length === 3);
    expect(informer.store.listKeys().sort()).toEqual(['a/1', 'b/1', 'b/2']);
    a.next({ type: 'replace', items: [], resourceVersion: '5' });
    await until(() => informer.store.listKeys().length === 2);
    expect(informer.store.listKeys().sort()).toEqual(['b/1', 'b/2']);
    expect(events.at(-1)).toMatchObject({ type: 'delete' });
    sub.unsubscribe();
  });
});

describe('InformerFactory({ namespaces }) against the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer({ token: true, tls: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    for (const ns of ['t-a', 't-b', 't-c']) {
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      for (let i = 0; i < 3; i++) server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: ns } });
    }
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('one list and watch per namespace, one cache and one event stream over the set', async () => {
    const scopes: ListWatchScope[] = [];
    const factory = new InformerFactory(
      (resource: ResourceType, scope: ListWatchScope): ListWatcher => {
        scopes.push(scope);
        return client.listWatcher(resource, scope);
      },
      { namespaces: ['t-b', 't-a'] },
    );
    const informer = factory.configMaps();
    expect(factory.configMaps()).toBe(informer);
    expect(factory.configMaps({ namespaces: ['t-a', 't-b'] })).toBe(informer);
    expect(informer.name).toBe('ConfigMap/t-a,t-b');
    // A single namespace, all namespaces, and a cluster-scoped resource are plain informers.
    expect(factory.configMaps({ namespace: 't-c' }).name).toBe('ConfigMap/t-c');
    expect(factory.for(resources.namespaces).name).toBe('Namespace');
    expect(scopes.map((s) => s.namespace)).toEqual(['t-a', 't-b', 't-c', undefined]);
    const events: InformerEvent[] = [];
    const sub = informer.events$.subscribe((e) => events.push(e));
    expect(await informer.waitForSync(10_000)).toBe(true);
    expect(informer.store.listKeys().sort()).toEqual(['t-a/cm-0', 't-a/cm-1', 't-a/cm-2', 't-b/cm-0', 't-b/cm-1', 't-b/cm-2']);
    expect(events.filter((e) => e.type === 'add' && e.isInInitialList)).toHaveLength(6);
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new', namespace: 't-a' } });
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new', namespace: 't-b' } });
    server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new', namespace: 't-c' } });
    server.delete('v1', 'ConfigMap', 'cm-0', 't-b');
    await until(() => informer.store.has('t-a/new') && informer.store.has('t-b/new') && !informer.store.has('t-b/cm-0'));
    await sleep(100);
    expect(informer.store.has('t-c/new')).toBe(false);
    expect(informer.store.listKeys()).toHaveLength(7);
    sub.unsubscribe();
  });
});

describe('a tenant whose RBAC forbids cluster-wide lists (embedded server with RBAC)', () => {
  let server: ApiServer;
  let admin: KubeClient;
  let tenant: KubeClient;
  beforeAll(async () => {
    server = await startApiServer({ tls: true, rbac: { users: { 'tenant-token': { name: 'tenant' } } } });
    admin = KubeClient.fromKubeConfig(server.kubeConfig);
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfigYaml.replace(/token: \S+/, 'token: tenant-token'));
    tenant = KubeClient.fromKubeConfig(kc);
    for (const ns of ['r-a', 'r-b', 'r-c']) {
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns } });
    }
    for (const ns of ['r-a', 'r-b']) {
      server.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'read', namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] });
      server.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'read', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read' },
        subjects: [{ kind: 'User', name: 'tenant', apiGroup: 'rbac.authorization.k8s.io' }],
      });
    }
  });
  afterAll(async () => {
    admin.close();
    tenant.close();
    await server.close();
  });

  it('lists the namespaces it may, where a cluster-wide informer is forbidden', async () => {
    await expect(tenant.objects(resources.configMaps).list()).rejects.toMatchObject({ statusCode: 403 });
    const factory = new InformerFactory(tenant, { namespaces: ['r-a', 'r-b'] });
    const informer = factory.configMaps();
    const sub = informer.events$.subscribe();
    expect(await informer.waitForSync(10_000)).toBe(true);
    expect(informer.store.listKeys().sort()).toEqual(['r-a/cm', 'r-b/cm']);
    await admin.objects(resources.configMaps, 'r-b').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'r-b' } });
    await until(() => informer.store.has('r-b/late'));
    sub.unsubscribe();
  });
});
