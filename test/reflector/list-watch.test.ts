import { describe, expect, it } from 'vitest';
import { ReflectorConfigError, ReflectorFatalError, WatchStalledError } from '../../src/reflector/reflector-errors.js';
import { ListTimeoutError } from '../../src/reflector/list-pages.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import { added, apiError, bookmark, gone, obj, page, unauthorized } from './fake-list-watcher.js';
import { run } from './harness.js';

describe('listWatch stall detection', () => {
  it('by default aborts a watch silent for 2 minutes and re-watches from the last RV after the connection backoff', () => {
    const r = run({ lists: [{ page: page([], '1') }], watches: [{ events: [[1_000, added(obj('a', '4'))]] }, { events: [[5_000, bookmark('6')]] }] }, 300_000);
    expect(r.lw.watchCalls[0]?.unsubscribedAt).toBe(121_000);
    const err = r.statuses.find((x) => x.s.type === 'error');
    expect(err?.t).toBe(121_000);
    expect(err?.s).toMatchObject({ action: 'rewatch' });
    expect((err?.s as { error: unknown }).error).toBeInstanceOf(WatchStalledError);
    expect(r.backoffs()[0]).toEqual({ type: 'backingOff', attempt: 1, delayMs: 100, next: 'rewatch', backoff: 'connection' });
    // the second watch resumes from "4" (no relist) and is healthy: a bookmark resets the backoff
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.resourceVersion])).toEqual([
      [0, '1'],
      [121_100, '4'],
      [246_200, '6'],
    ]);
    expect(r.backoffs().map((b) => b.attempt)).toEqual([1, 1]);
    expect(r.lw.listCalls).toHaveLength(1);
  });

  it('with idleTimeoutMs: 0, aborts a watch still silent 30s past its timeoutSeconds', () => {
    const r = run({ lists: [{ page: page([], '1') }], watches: [{ events: [[1_000, added(obj('a', '4'))]] }] }, 400_000, { idleTimeoutMs: 0 });
    const first = r.lw.watchCalls[0];
    expect(first?.options.timeoutSeconds).toBe(300);
    expect(first?.unsubscribedAt).toBe(330_000);
    const err = r.statuses.find((x) => x.s.type === 'error');
    expect(err?.t).toBe(330_000);
    expect(err?.s).toMatchObject({ action: 'rewatch' });
    expect((err?.s as { error: unknown }).error).toBeInstanceOf(WatchStalledError);
    expect(r.lw.watchCalls.map((c) => [c.at, c.options.resourceVersion])).toEqual([
      [0, '1'],
      [330_100, '4'],
    ]);
    expect(r.lw.listCalls).toHaveLength(1);
  });

  it('does not kill a watch that is still delivering events past its deadline', () => {
    const late = Array.from({ length: 10 }, (_, i) => [300_000 + i * 10_000, bookmark(String(10 + i))] as const);
    const r = run({ lists: [{ page: page([], '1') }], watches: [{ events: late }] }, 500_000, { idleTimeoutMs: 0 });
    // last event at 390 000; dead 30 s later
    expect(r.lw.watchCalls[0]?.unsubscribedAt).toBe(420_000);
  });

  it('idleTimeoutMs treats a silent watch as dead earlier', () => {
    const r = run(
      { lists: [{ page: page([], '1') }], watches: [{ events: [[5_000, bookmark('2')]] }] },
      30_000,
      { idleTimeoutMs: 10_000 },
    );
    expect(r.lw.watchCalls[0]?.unsubscribedAt).toBe(15_000);
    expect(r.lw.watchCalls[1]?.at).toBe(15_100);
  });

  it('also restarts a frozen streaming list', () => {
    const r = run({ watches: [{ events: [[10, added(obj('a', '1'))]] }] }, 400_000, { streamingList: true });
    expect(r.lw.watchCalls[0]?.unsubscribedAt).toBe(120_010);
    expect(r.lw.watchCalls[1]?.options.sendInitialEvents).toBe(true);
  });
});

describe('listWatch list timeout', () => {
  it('aborts a list page unanswered for listTimeoutMs, backs off and relists', () => {
    const r = run({ lists: [{ page: page([obj('a', '1')], '1', 'C') }, { hang: true }, { page: page([], '2') }] }, 200_000);
    // page 2 (continue C) hangs: aborted after 90 s, then a fresh list after the 100 ms connection backoff
    expect(r.lw.listCalls.map((c) => [c.at, c.options.continue])).toEqual([
      [0, undefined],
      [0, 'C'],
      [90_100, undefined],
    ]);
    expect(r.lw.listCalls[1]?.unsubscribedAt).toBe(90_000);
    const err = r.statuses.find((x) => x.s.type === 'error')?.s as { error: unknown };
    expect(err.error).toBeInstanceOf(ListTimeoutError);
    expect(r.eventTypes()).toEqual(['replace']);
  });

  it('listTimeoutMs: 0 waits forever', () => {
    const r = run({ lists: [{ hang: true }] }, 500_000, { listTimeoutMs: 0 });
    expect(r.lw.listCalls).toHaveLength(1);
    expect(r.lw.listCalls[0]?.unsubscribedAt).toBe(500_000);
  });
});

describe('listWatch errors and lifecycle', () => {
  it('errors with ReflectorFatalError after authRetries + 1 consecutive 401/403', () => {
    const r = run({ lists: [{ error: unauthorized() }, { error: unauthorized() }, { error: unauthorized() }, { page: page([], '1') }] }, 60_000);
    expect(r.error).toBeInstanceOf(ReflectorFatalError);
    expect((r.error as Error).cause).toMatchObject({ statusCode: 401 });
    expect(r.errorAt).toBe(2_400);
    expect(r.lw.listCalls).toHaveLength(3);
    expect(r.statusCompleted).toBe(true);
  });

  it('ReflectorFatalError names the informer and says how many refusals stopped it; a 403 suggests list and watch', () => {
    const forbidden = apiError(403, 'Forbidden', { message: 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" at the cluster scope' });
    const r = run({ lists: [{ error: forbidden }, { error: forbidden }] }, 60_000, { name: 'ConfigMap', authRetries: 1 });
    const fatal = r.error as ReflectorFatalError;
    expect(fatal).toBeInstanceOf(ReflectorFatalError);
    expect(fatal.informer).toBe('ConfigMap');
    expect(fatal.message.split('\n')[0]).toBe(
      'reflector of informer "ConfigMap" stopped after 2 consecutive 403 answers: 403 Forbidden: configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" at the cluster scope',
    );
    expect(fatal.rbacRule).toMatchObject({ role: 'ClusterRole', binding: 'ClusterRoleBinding', rule: { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] } });
    expect(fatal.hint).toContain('User "bob" may not list what this informer caches, and a reflector needs list and watch.');
  });

  it('a success in between resets the 401 count', () => {
    const r = run(
      {
        lists: [{ error: unauthorized() }, { error: unauthorized() }, { page: page([], '1') }, { error: unauthorized() }, { error: unauthorized() }, { page: page([], '2') }],
        watches: [{ errorAt: 5_000, error: gone() }],
      },
      60_000,
    );
    expect(r.error).toBeUndefined();
    expect(r.lw.listCalls).toHaveLength(6);
  });

  it('isFatal makes any error fatal', () => {
    const boom = new Error('bad kubeconfig');
    const r = run({ lists: [{ error: boom }] }, 10_000, { isFatal: (e) => e === boom });
    expect(r.error).toBeInstanceOf(ReflectorFatalError);
    expect((r.error as Error).message).toBe('reflector stopped: bad kubeconfig');
    expect(r.errorAt).toBe(0);
  });

  it('rejects invalid options with ReflectorConfigError at subscribe', () => {
    let error: unknown;
    listWatch({ list: () => { throw new Error('not called'); }, watch: () => { throw new Error('not called'); } }, { pageSize: -1 }).subscribe({
      error: (e: unknown) => (error = e),
    });
    expect(error).toBeInstanceOf(ReflectorConfigError);
    expect(() => run({}, 10, { backoff: { factor: 0.5 } })).not.toThrow();
    expect(run({}, 10, { backoff: { factor: 0.5 } }).error).toBeInstanceOf(ReflectorConfigError);
    expect(run({}, 10, { listMemoryBudget: -1 }).error).toMatchObject({ option: 'listMemoryBudget' });
    expect(run({}, 10, { listMemoryBudget: Number.NaN }).error).toBeInstanceOf(ReflectorConfigError);
    expect(run({}, 10, { listParse: 'later' as never }).error).toMatchObject({ option: 'listParse' });
    for (const ok of [{ listMemoryBudget: 0 }, { listMemoryBudget: Infinity }, { listParse: 'items' as const }, { listParse: 'auto' as const }]) {
      expect(run({}, 10, ok).error).toBeUndefined();
    }
  });

  it('unsubscribing aborts the watch, cancels every timer and completes the status observer', () => {
    const r = run({ lists: [{ page: page([], '1') }], watches: [{ events: [[100, added(obj('a', '2'))]] }] }, 5_000);
    expect(r.lw.watchCalls[0]?.unsubscribedAt).toBe(5_000);
    expect(r.statusCompleted).toBe(true);
    // nothing ran after the unsubscribe: the last status is the watch start
    expect(r.statuses.at(-1)?.s.type).toBe('watching');

    const backingOff = run({ lists: [{ error: new Error('boom') }] }, 100);
    expect(backingOff.lw.listCalls).toHaveLength(1);
    expect(backingOff.statuses.at(-1)?.s.type).toBe('backingOff');
  });

  it('reports its status: connecting, listing, listed, watching, error, backingOff', () => {
    const r = run({ lists: [{ page: page([obj('a', '1')], '1') }, { page: page([], '3') }], watches: [{ errorAt: 2_000, error: apiError(400, 'BadRequest') }] }, 5_000);
    expect(r.statuses.map((x) => x.s.type)).toEqual([
      'connecting',
      'listing',
      'listed',
      'watching',
      'error',
      'backingOff',
      'connecting',
      'listing',
      'listed',
      'watching',
    ]);
    expect(r.statuses[1]?.s).toEqual({ type: 'listing', resourceVersion: '0', limit: 500 });
    expect(r.statuses[2]?.s).toEqual({ type: 'listed', resourceVersion: '1', itemCount: 1, paginated: false });
    expect(r.statuses[5]?.s).toEqual({ type: 'backingOff', attempt: 1, delayMs: 800, next: 'relist', backoff: 'general' });
  });
});
