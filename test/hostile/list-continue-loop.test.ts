/**
 * Hostile server, finding 4: a list whose `continue` token never changes (or cycles, or never
 * ends) was followed forever — 11,946 page requests in 15 s, RSS 1.2 GB, no error. Now the list
 * fails with a typed error after a bounded number of pages, nothing reaches the cache, and the
 * failure is on the informer's error stream.
 */
import { filter, firstValueFrom, map, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { ListWatchError } from '../../src/informer/list-watch-error.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { ListContinueLoopError, ListPageLimitError } from '../../src/reflector/list-pages.js';
import type { ListWatchOptions } from '../../src/reflector/list-watch-options.js';
import { type FakeHandler, json, pod, podList, startFakeApiServer } from './fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

/** Runs a Pod/default informer against `handler`; resolves with the first list/watch failure's cause. */
async function firstFailure(handler: FakeHandler, listWatch: ListWatchOptions = {}) {
  const server = await startFakeApiServer(handler);
  cleanup.push(() => server.close());
  const client = KubeClient.fromKubeConfig(server.kubeConfig, { retry: false });
  cleanup.push(() => client.close());
  // the relist after the failure is far away: the test sees exactly one list attempt
  const informer = sharedInformer({ client, resource: resources.pods, scope: { namespace: 'default' }, listWatch: { backoff: { initialMs: 60_000 }, streamingList: false, ...listWatch } });
  const failure = firstValueFrom(
    informer.errors$.pipe(
      filter((e): e is ListWatchError => e instanceof ListWatchError),
      map((e) => e.cause),
      timeout(10_000),
    ),
  );
  const sub = informer.run$.subscribe({ error: () => undefined });
  cleanup.push(() => sub.unsubscribe());
  const cause = await failure;
  const lists = server.requests.filter((r) => r.query.get('watch') !== 'true').length;
  return { cause, lists, informer, server };
}

describe('hostile: list pages that never end', () => {
  it('a continue token repeated by the next page fails the list with ListContinueLoopError', async () => {
    let n = 0;
    const r = await firstFailure((_req, res) => json(res, 200, podList([pod(`p${n++}`, '5')], '5', 'same-token')), { pagesInFlight: 1 });
    expect(r.cause).toBeInstanceOf(ListContinueLoopError);
    expect(r.cause).toMatchObject({ code: 'REFLECTOR_LIST_CONTINUE_LOOP', page: 2, firstPage: 1 });
    expect(r.lists).toBeLessThanOrEqual(3);
    expect(r.informer.hasSynced()).toBe(false);
    expect(r.informer.store.size).toBe(0);
  });

  it('a cycling continue token (a → b → a) is caught too, with pipelined paging', async () => {
    const r = await firstFailure((_req, res, seen) => {
      const next = seen.query.get('continue') === 'a' ? 'b' : 'a';
      json(res, 200, podList([pod(`p-${next}`, '5')], '5', next));
    });
    expect(r.cause).toBeInstanceOf(ListContinueLoopError);
    expect(r.cause).toMatchObject({ page: 3, firstPage: 1 });
    expect(r.lists).toBeLessThanOrEqual(4);
    expect(r.informer.store.size).toBe(0);
  });

  it('a list that never ends fails after maxListPages pages with ListPageLimitError', async () => {
    let n = 0;
    const r = await firstFailure((_req, res) => {
      n += 1;
      json(res, 200, podList([pod(`p${n}`, '5')], '5', `token-${n}`));
    }, { maxListPages: 25 });
    expect(r.cause).toBeInstanceOf(ListPageLimitError);
    expect(r.cause).toMatchObject({ code: 'REFLECTOR_LIST_TOO_MANY_PAGES', maxPages: 25 });
    expect((r.cause as Error).message).toContain('maxListPages');
    expect(r.lists).toBeGreaterThanOrEqual(25);
    expect(r.lists).toBeLessThanOrEqual(27);
    expect(r.informer.store.size).toBe(0);
  });
});
