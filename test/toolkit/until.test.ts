/**
 * until / untilCached: marbles over a fake source in virtual time, and a real shared informer on
 * the embedded API server (read-your-writes after create, update and delete).
 */
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { Indexer } from '../../src/cache/indexer.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { conditions } from '../../src/controller/conditions.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { compareResourceVersions, untilCached } from '../../src/informer/until-cached.js';
import { until, WaitTimeoutError } from '../../src/informer/until.js';
import { until as publicUntil } from '../../src/informer/wait.js';
import { added, deleted, fakeSource, updated } from '../../src/testing/controller-harness.js';
import { startApiServer, type ApiServer } from '../../packages/testkit/src/api-server/start-api-server.js';
import { marbles } from '../helpers/marbles.js';

const PODS = { apiVersion: 'v1', kind: 'Pod', namespaced: true };
const pod = (rv: string, ready?: boolean, uid = 'u1'): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', resourceVersion: rv, uid },
  ...(ready === undefined ? {} : { status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }),
});
const isReady = (p: KubeObject | undefined): boolean => conditions.isTrue(conditions.of(p), 'Ready');

describe('until (marbles, virtual time)', () => {
  it(
    'emits the object once the predicate holds, then completes',
    marbles((m) => {
      const source = fakeSource({
        resource: PODS,
        initial: [pod('1', false)],
        events$: m.hot('--a---b', { a: updated(pod('1', false), pod('2', false)), b: updated(pod('2', false), pod('3', true)) }),
      });
      m.expect(until(source, 'ns/p', isReady, { scheduler: m.scheduler })).toBeObservable('------(p|)', { p: pod('3', true) });
    }),
  );

  it(
    'checks at once; waits for a deletion; times out on the scheduler',
    marbles((m) => {
      const ready = fakeSource({ resource: PODS, initial: [pod('1', true)] });
      m.expect(until(ready, 'ns/p', isReady)).toBeObservable('(p|)', { p: pod('1', true) });
      const going = fakeSource({ resource: PODS, initial: [pod('1')], events$: m.hot('---d', { d: deleted(pod('1')) }) });
      m.expect(until(going, 'ns/p', (o) => o === undefined, { scheduler: m.scheduler })).toBeObservable('---(u|)', { u: undefined });
      const never = fakeSource({ resource: PODS, initial: [pod('1', false)] });
      m.expect(until(never, 'ns/p', isReady, { scheduler: m.scheduler, timeoutMs: 5 })).toBeObservable('-----#', undefined, new WaitTimeoutError('ns/p', 5));
    }),
  );

  it(
    'a bare Store is polled',
    marbles((m) => {
      const store = new Indexer<KubeObject>({ freeze: 'none' });
      m.scheduler.schedule(() => store.upsert(pod('4')), 250);
      m.expect(until(store, 'ns/p', (o) => o !== undefined, { scheduler: m.scheduler, pollMs: 100 })).toBeObservable('300ms (p|)', { p: pod('4') });
    }),
  );
});

describe('untilCached (marbles)', () => {
  it(
    'completes when the cache holds the write\'s resourceVersion or newer, or a recreated object',
    marbles((m) => {
      const events$ = m.hot('--a--b', { a: updated(pod('5'), pod('6')), b: updated(pod('6'), pod('7')) });
      const source = fakeSource({ resource: PODS, initial: [pod('5')], events$ });
      m.expect(untilCached(source, pod('7'), { scheduler: m.scheduler })).toBeObservable('-----(p|)', { p: pod('7') });
      m.expect(untilCached(source, pod('6'), { scheduler: m.scheduler })).toBeObservable('--(p|)', { p: pod('6') });
      const recreated = fakeSource({ resource: PODS, initial: [pod('3', undefined, 'u2')] });
      m.expect(untilCached(recreated, pod('9'), { scheduler: m.scheduler })).toBeObservable('(p|)', { p: pod('3', undefined, 'u2') });
    }),
  );

  it(
    'a delete completes once the key is gone (or holds another uid); a timeout errors',
    marbles((m) => {
      const source = fakeSource({ resource: PODS, initial: [pod('5')], events$: m.hot('----d', { d: deleted(pod('5')) }) });
      m.expect(untilCached(source, { deleted: pod('5') }, { scheduler: m.scheduler })).toBeObservable('----(u|)', { u: undefined });
      const stuck = fakeSource({ resource: PODS, initial: [pod('5')] });
      m.expect(untilCached(stuck, pod('8'), { scheduler: m.scheduler, timeoutMs: 3 })).toBeObservable('---#', undefined, new WaitTimeoutError('ns/p at resourceVersion 8', 3));
      const other = fakeSource({ resource: PODS, initial: [pod('9', undefined, 'u2')] });
      m.expect(untilCached(other, { deleted: pod('5') })).toBeObservable('(u|)', { u: undefined });
    }),
  );

  it(
    'the public until is until, with until.cached',
    marbles((m) => {
      const source = fakeSource({ resource: PODS, initial: [pod('5', true)] });
      m.expect(publicUntil(source, 'ns/p', isReady)).toBeObservable('(p|)', { p: pod('5', true) });
      m.expect(publicUntil.cached(source, pod('5'))).toBeObservable('(p|)', { p: pod('5', true) });
    }),
  );

  it('compareResourceVersions compares decimal revisions, anything else only for equality', () => {
    expect(compareResourceVersions('9', '10')).toBe(-1);
    expect(compareResourceVersions('10', '10')).toBe(0);
    expect(compareResourceVersions('123456789012345678901', '9')).toBe(1);
    expect(compareResourceVersions('abc', 'abd')).toBeUndefined();
    expect(compareResourceVersions('abc', 'abc')).toBe(0);
    expect(added(pod('1')).type).toBe('add');
  });
});

describe('against a shared informer on the embedded API server', () => {
  let server: ApiServer;
  let client: KubeClient;
  let factory: InformerFactory;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    factory = new InformerFactory(client, { namespace: 'default' });
    factory.configMaps();
    factory.start();
    await factory.waitForCacheSync(10_000);
  });
  afterAll(async () => {
    factory.stop();
    client.close();
    await server.close();
  });

  it('a reconcile reads its own create, update and delete from the cache once untilCached completes', async () => {
    const informer = factory.configMaps();
    const cms = client.objects({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default', { fieldManager: 'ryw' });
    for (let i = 0; i < 20; i++) {
      const written = await cms.apply({ metadata: { name: `ryw-${i}` }, data: { n: String(i) } });
      const cached = await firstValueFrom(untilCached(informer, written, { timeoutMs: 5_000 }));
      expect(informer.store.get(`default/ryw-${i}`)?.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
      expect(cached).toEqual(informer.store.get(`default/ryw-${i}`));
      const changed = await cms.apply({ metadata: { name: `ryw-${i}` }, data: { n: `${i}!` } });
      await firstValueFrom(untilCached(informer, changed, { timeoutMs: 5_000 }));
      expect(informer.store.get(`default/ryw-${i}`)?.['data']).toEqual({ n: `${i}!` });
      await cms.delete(`ryw-${i}`);
      await firstValueFrom(untilCached(informer, { deleted: changed }, { timeoutMs: 5_000 }));
      expect(informer.store.get(`default/ryw-${i}`)).toBeUndefined();
    }
  });

  it('until waits for a condition written by someone else', async () => {
    const informer = factory.configMaps();
    setTimeout(() => server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later', namespace: 'default' }, data: { ready: 'yes' } }), 50);
    const cm = await firstValueFrom(until(informer, 'default/later', (o) => o?.['data'] !== undefined, { timeoutMs: 5_000 }));
    expect(cm?.metadata?.name).toBe('later');
    await expect(firstValueFrom(until(informer, 'default/never', (o) => o !== undefined, { timeoutMs: 100 }))).rejects.toBeInstanceOf(WaitTimeoutError);
  });
});
