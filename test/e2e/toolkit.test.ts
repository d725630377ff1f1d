/**
 * The controller author's toolkit on a real kube-apiserver (1.20: server-side apply in beta, on by
 * default; events.k8s.io/v1 served): where the server's behaviour matters — apply ownership and
 * conflicts, applyStatus, create-or-update, conflicts and retryOnConflict, owner reference
 * validation, until (a CRD Established) and read-your-writes through an informer, Events with a
 * series — and the ConfigMap mirror example.
 */
import { randomBytes } from 'node:crypto';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { ApiError, isConflict } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { retryOnConflict } from '../../src/client/retry-on-conflict.js';
import { conditions } from '../../src/controller/conditions.js';
import { ownerRefs } from '../../src/controller/owner-references.js';
import { clientEventsApi } from '../../src/events/client-events-api.js';
import { eventRecorder } from '../../src/events/event-recorder.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { until } from '../../src/informer/wait.js';
import { manager } from '../../src/manager/manager.js';
import { configMapMirror, FROM } from '../../examples/configmap-mirror/mirror-controller.js';
import { hasCluster } from './helpers/cluster.js';

const suffix = randomBytes(3).toString('hex');
const ns = `rxkube-toolkit-${suffix}`;
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;
const GROUP = `toolkit-${suffix}.example.com`;
const GADGETS = { apiVersion: `${GROUP}/v1`, kind: 'Gadget', plural: 'gadgets', namespaced: true } as const;

interface Gadget extends UnstructuredObject {
  readonly spec?: { readonly size?: number };
  readonly status?: { readonly conditions?: readonly { type: string; status: 'True' | 'False' | 'Unknown'; reason?: string; lastTransitionTime?: string; observedGeneration?: number }[] };
}

describe.skipIf(!hasCluster)('toolkit against a real kube-apiserver', () => {
  let client: KubeClient;

  beforeAll(async () => {
    client = KubeClient.fromDefault();
    await client.objects(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await client.objects(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${ns}-copies` } });
    await client.objects(CRD).create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{
          name: 'v1', served: true, storage: true, subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        }],
      },
    } as UnstructuredObject);
  });

  afterAll(async () => {
    await client?.objects(CRD).delete(`gadgets.${GROUP}`, { ignoreNotFound: true });
    await client?.objects(resources.namespaces).delete(ns, { ignoreNotFound: true });
    await client?.objects(resources.namespaces).delete(`${ns}-copies`, { ignoreNotFound: true });
    client?.close();
  });

  it('until: the CRD becomes Established (set by the server\'s own controller)', async () => {
    const factory = new InformerFactory(client);
    const crds = factory.for(CRD, { namespace: null });
    const established = await firstValueFrom(
      until(crds, `gadgets.${GROUP}`, (crd) => conditions.isTrue(conditions.of(crd), 'Established'), { timeoutMs: 30_000 }),
    );
    expect(established?.metadata?.name).toBe(`gadgets.${GROUP}`);
    factory.stop();
    // Discovery may lag the condition a moment: wait until the new resource is served.
    await retryOnConflict(() => client.resolve({ apiVersion: GADGETS.apiVersion, kind: GADGETS.kind }), { retriable: () => true, steps: 50, delayMs: 100 });
  });

  it('apply: owns what it sends, removes what it leaves out, conflicts with another manager (409 FieldManagerConflict), force takes over', async () => {
    const mine = client.objects(resources.configMaps, ns, { fieldManager: 'toolkit-controller' });
    const theirs = client.objects(resources.configMaps, ns, { fieldManager: 'toolkit-human' });
    const created = await mine.apply({ metadata: { name: 'applied', labels: { app: 'a' } }, data: { one: '1', two: '2' } });
    expect(created.data).toEqual({ one: '1', two: '2' });
    expect(created.metadata?.managedFields?.map((f) => (f as { manager: string }).manager)).toEqual(['toolkit-controller']);
    const smaller = await mine.apply({ metadata: { name: 'applied' }, data: { two: '2' } });
    expect(smaller.data).toEqual({ two: '2' });
    expect(smaller.metadata?.labels).toBeUndefined();
    // Same value: shared, no conflict. Another value: conflict.
    await theirs.apply({ metadata: { name: 'applied' }, data: { two: '2' } });
    const err = await theirs.apply({ metadata: { name: 'applied' }, data: { two: 'changed' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 409, code: 'API_CONFLICT' });
    expect((err as ApiError).status.details?.causes).toEqual([expect.objectContaining({ reason: 'FieldManagerConflict', field: '.data.two' })]);
    const forced = await theirs.apply({ metadata: { name: 'applied' }, data: { two: 'changed' } }, { force: true });
    expect(forced.data).toEqual({ two: 'changed' });
    // An update naming a field manager owns what it changed: the controller's apply now conflicts.
    await client.objects(resources.configMaps, ns).patch('applied', { data: { three: '3' } }, 'merge', { fieldManager: 'toolkit-editor' });
    const again = await mine.apply({ metadata: { name: 'applied' }, data: { three: 'mine' } }).catch((e: unknown) => e);
    expect(again).toMatchObject({ statusCode: 409 });
    expect((again as ApiError).message).toContain('toolkit-editor');
  });

  it('applyStatus and conditions on a custom resource with a status subresource; the spec apply ignores status', async () => {
    const gadgets = client.objects<Gadget>(GADGETS, ns, { fieldManager: 'gadget-controller' });
    const created = await gadgets.apply({ metadata: { name: 'g1' }, spec: { size: 1 }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    expect(created.status).toBeUndefined();
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const ready = conditions.set(conditions.of(created), { type: 'Ready', status: 'False', reason: 'Starting', observedGeneration: created.metadata?.generation }, t0);
    const first = await gadgets.applyStatus({ metadata: { name: 'g1' }, status: { conditions: ready } });
    const next = conditions.set(conditions.of(first), { type: 'Ready', status: 'False', reason: 'Waiting', observedGeneration: 1 }, t0 + 60_000);
    const second = await gadgets.applyStatus({ metadata: { name: 'g1' }, status: { conditions: next } });
    expect(conditions.find(conditions.of(second), 'Ready')).toEqual({ type: 'Ready', status: 'False', reason: 'Waiting', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' });
    expect(second.spec).toEqual({ size: 1 });
  });

  it('createOrUpdate / createOrPatch report created, updated, unchanged; a stale update conflicts and retryOnConflict wins', async () => {
    const cms = client.objects(resources.configMaps, ns, { fieldManager: 'ensure' });
    const desired = { metadata: { name: 'ensured' } };
    const setMode = (mode: string) => (cm: { data?: Record<string, string> }) => {
      cm.data = { ...cm.data, mode };
    };
    expect((await cms.createOrUpdate(desired, setMode('a'))).result).toBe('created');
    expect((await cms.createOrUpdate(desired, setMode('a'))).result).toBe('unchanged');
    expect((await cms.createOrPatch(desired, setMode('b'))).result).toBe('updated');
    const stale = await cms.get('ensured');
    await cms.replace({ ...stale, data: { mode: 'c' } });
    const conflict = await cms.replace({ ...stale, data: { mode: 'd' } }).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    let attempts = 0;
    await retryOnConflict(async () => {
      const current = attempts++ === 0 ? stale : await cms.get('ensured');
      return cms.replace({ ...current, data: { mode: 'e' } });
    });
    expect(attempts).toBe(2);
    expect((await cms.get('ensured')).data).toEqual({ mode: 'e' });
  });

  it('owner references: setControllerReference is accepted; the server refuses a second controller reference', async () => {
    const owner = await client.objects(resources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const other = await client.objects(resources.configMaps, ns).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other-owner' } });
    const owned = await client
      .objects(resources.configMaps, ns, { fieldManager: 'owner-controller' })
      .apply(ownerRefs.setControllerReference(owner, { metadata: { name: 'owned', namespace: ns }, data: { k: 'v' } }));
    expect(ownerRefs.isControlledBy(owned, owner)).toBe(true);
    const twoControllers = { ...owned, metadata: { ...owned.metadata, ownerReferences: [...(owned.metadata?.ownerReferences ?? []), { apiVersion: 'v1', kind: 'ConfigMap', name: 'other-owner', uid: other.metadata?.uid ?? '', controller: true }] } };
    const refused = await client.objects(resources.configMaps, ns).replace(twoControllers).catch((e: unknown) => e);
    expect(refused).toMatchObject({ statusCode: 422, code: 'API_INVALID' });
    expect(ownerRefs.claim(owner, owned, false)).toBe('release');
    const released = await client.objects(resources.configMaps, ns).replace(ownerRefs.removeOwnerReference(owner, owned));
    expect(released.metadata?.ownerReferences).toBeUndefined();
  });

  it('read-your-writes: the informer holds each write once until.cached completes', async () => {
    const factory = new InformerFactory(client, { namespace: ns });
    const informer = factory.configMaps();
    factory.start();
    expect(await factory.waitForCacheSync(30_000)).toBe(true);
    const cms = client.objects(resources.configMaps, ns, { fieldManager: 'ryw' });
    for (let i = 0; i < 10; i++) {
      const written = await cms.apply({ metadata: { name: `ryw-${i}` }, data: { n: String(i) } });
      await firstValueFrom(until.cached(informer, written, { timeoutMs: 10_000 }));
      expect(informer.store.get(`${ns}/ryw-${i}`)?.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
      await cms.delete(`ryw-${i}`);
      await firstValueFrom(until.cached(informer, { deleted: written }, { timeoutMs: 10_000 }));
      expect(informer.store.has(`${ns}/ryw-${i}`)).toBe(false);
    }
    factory.stop();
  });

  it('events.k8s.io/v1 Events with a series pass the server\'s validation', async () => {
    const api = clientEventsApi(client);
    expect(await api.version()).toBe('events.k8s.io/v1');
    const recorder = eventRecorder({ api, source: { component: 'toolkit-e2e' } });
    const regarding = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ensured', namespace: ns, uid: 'u' } };
    for (let i = 0; i < 3; i++) recorder.event(regarding, 'Normal', 'Synced', 'in sync', { action: 'Sync' });
    await recorder.flush();
    const events = (await client.objects(resources.eventsV1, ns).list()).items.filter((e) => e.reportingController === 'toolkit-e2e');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'Sync', reason: 'Synced', note: 'in sync', regarding: { name: 'ensured' }, series: { count: 3 } });
    recorder.shutdown();
  });

  it('the ConfigMap mirror example converges: copies, follows, deletes copies whose source is gone', async () => {
    const from = ns;
    const to = `${ns}-copies`;
    const cms = (namespace: string) => client.objects(resources.configMaps, namespace);
    await cms(from).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm1', labels: { mirror: 'true' } }, data: { a: '1' } });
    await cms(to).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale', labels: { [FROM]: from } }, data: {} });
    const informers = new InformerFactory(client);
    const mgr = manager({ client });
    mgr.add(informers.runnable());
    mgr.add(configMapMirror({ client, informers, from, to }));
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const copies = informers.for(resources.configMaps, { namespace: to });
      const wait = (name: string, ok: (o: { data?: Record<string, string> } | undefined) => boolean) =>
        firstValueFrom(until(copies, `${to}/${name}`, ok, { timeoutMs: 30_000 }));
      await wait('m1', (o) => o?.data?.['a'] === '1');
      await wait('stale', (o) => o === undefined);
      await cms(from).patch('m1', { data: { a: '2' } });
      await wait('m1', (o) => o?.data?.['a'] === '2');
      await cms(from).delete('m1');
      await wait('m1', (o) => o === undefined);
    } finally {
      stop.abort();
      await running;
    }
  });
});
