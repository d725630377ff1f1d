/**
 * Hostile server, finding 5: lists succeed, every watch fails at once (a 500 answer, or an
 * `ERROR` event right after one good event). Each good list used to reset the backoff, so the
 * informer relisted about every 300 ms forever (103 LISTs + 103 WATCHes in 30 s). Now the backoff
 * keeps growing until a watch has stayed healthy for `watchHealthyMs`: relists get ever rarer, and
 * every failure is on the informer's error stream.
 *
 * Real HTTP, so real time: the backoffs are configured 16× shorter than the defaults (50 ms
 * general, 16 ms server-error) to keep the test short; the growth is what is asserted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { ListWatchError } from '../../src/informer/list-watch-error.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { type FakeHandler, json, pod, podList, startFakeApiServer } from './fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const RUN_MS = 2_000;

async function runFor(handler: FakeHandler) {
  const server = await startFakeApiServer(handler);
  cleanup.push(() => server.close());
  const client = KubeClient.fromKubeConfig(server.kubeConfig, { retry: false });
  cleanup.push(() => client.close());
  const informer = sharedInformer({
    client,
    resource: resources.pods,
    scope: { namespace: 'default' },
    listWatch: { streamingList: false, backoff: { initialMs: 50, jitter: 0 }, serverErrorBackoff: { initialMs: 16, jitter: 0 }, random: () => 0 },
  });
  const waits: number[] = [];
  const errors: Error[] = [];
  const statusSub = informer.status$.subscribe((s: ReflectorStatus) => {
    if (s.type === 'backingOff') waits.push(s.delayMs);
  });
  const errorSub = informer.errors$.subscribe((e) => errors.push(e));
  const sub = informer.run$.subscribe({ error: () => undefined });
  await new Promise((resolve) => setTimeout(resolve, RUN_MS));
  sub.unsubscribe();
  statusSub.unsubscribe();
  errorSub.unsubscribe();
  const lists = server.requests.filter((r) => r.query.get('watch') !== 'true').length;
  const watches = server.requests.length - lists;
  return { lists, watches, waits, errors };
}

function expectGrowing(waits: readonly number[]): void {
  expect(waits.length).toBeGreaterThanOrEqual(3);
  for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1] as number);
}

describe('hostile: every watch fails right after a good list', () => {
  it('watches answered 500: the relist backoff grows instead of restarting at every good list', async () => {
    const r = await runFor((_req, res, seen) => {
      if (seen.query.get('watch') === 'true') json(res, 500, { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' });
      else json(res, 200, podList([pod('a', '5')], '5'));
    });
    // old code: a relist every ~16 ms (+ round trips) → dozens; now 50, 100, 200, 400, 800 ms, then 1.6 s
    expect(r.lists).toBeLessThanOrEqual(7);
    expect(r.watches).toBeLessThanOrEqual(7);
    expectGrowing(r.waits);
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors.every((e) => e instanceof ListWatchError)).toBe(true);
  });

  it('a watch ERROR event after one good event does not reset the backoff either', async () => {
    let n = 0;
    const r = await runFor((_req, res, seen) => {
      if (seen.query.get('watch') !== 'true') return json(res, 200, podList([pod('a', '5')], '5'));
      n += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: pod(`b${n}`, String(5 + n)) })}\n`);
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: 'etcd' } })}\n`);
    });
    expect(r.lists).toBeLessThanOrEqual(7);
    expectGrowing(r.waits);
  });
});
