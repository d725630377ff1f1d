/**
 * `virtualTime`'s outcome assertions: `eventually` runs virtual time until a condition holds
 * within a budget, `converged` until nothing is due soon; both fail with a typed error whose
 * message names the last state, the reconciles run and the pending work.
 */
import { describe, expect, it } from 'vitest';
import { controller, resources, type KubeObject } from 'rxkube';
import { EventuallyTimeoutError, NotConvergedError, virtualTime, type InProcessCluster } from '../src/index.js';

const configMap = (name: string, data: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data }) as KubeObject;

let controllers = 0;

/** Copies each ConfigMap `x` to `x-copy` (data included); `requeueAfter` makes it come back for ever. */
function copier(cluster: InProcessCluster, scheduler: Parameters<typeof controller>[0]['scheduler'], requeueAfter?: number) {
  return controller({
    name: `copier-${++controllers}`,
    for: resources.configMaps,
    informers: cluster.informers(),
    client: cluster.client,
    scheduler,
    reconcile: async (request, ctx) => {
      const source = ctx.object as (KubeObject & { data?: Record<string, string> }) | undefined;
      if (source === undefined || request.name.endsWith('-copy')) return undefined;
      await ctx.objects().apply({ metadata: { name: `${request.name}-copy` }, data: source.data ?? {} }, { force: true, signal: ctx.signal });
      return requeueAfter === undefined ? undefined : { requeueAfter };
    },
  });
}

const copyData = (cluster: InProcessCluster, name: string): unknown => (cluster.get('v1', 'ConfigMap', `${name}-copy`, 'default') as { data?: unknown } | undefined)?.data;

describe('eventually', () => {
  it('returns as soon as the condition holds, without running time further', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually }) => {
      scheduler.schedule(() => void cluster.create(configMap('a', { v: '1' })), 40);
      start(copier(cluster, scheduler));
      const report = await eventually(() => expect(copyData(cluster, 'a')).toEqual({ v: '1' }), { withinMs: 1_000 });
      expect(scheduler.now()).toBe(40); // created at 40, copied in the same frame (watch latency 0)
      expect(report.startedAt).toBe(0);
      expect(report.reconciles.map((r) => r.outcome.request.name)).toContain('a');
    });
  });

  it('a condition that holds at once runs no time at all', async () => {
    await virtualTime(async ({ scheduler, eventually }) => {
      const report = await eventually(() => true);
      expect(scheduler.now()).toBe(0);
      expect(report.endedAt).toBe(0);
    });
  });

  it('fails at the end of its budget, naming the condition, the last state, the reconciles and the pending work', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually }) => {
      cluster.seed([configMap('a', { v: '1' })]);
      start(copier(cluster, scheduler));
      const error = await eventually(() => expect(copyData(cluster, 'a')).toEqual({ v: '2' }), {
        withinMs: 500,
        what: 'the copy of a has v=2',
        state: () => copyData(cluster, 'a'),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventuallyTimeoutError);
      const e = error as EventuallyTimeoutError;
      expect(scheduler.now()).toBe(500); // the whole budget, not more
      expect(e.code).toBe('TESTING_EVENTUALLY_TIMEOUT');
      expect(e.what).toBe('the copy of a has v=2');
      expect(e.lastState).toEqual({ v: '1' });
      expect(e.lastFailure).toMatch(/^threw AssertionError: expected .* to deeply equal/);
      expect(e.cause).toBeInstanceOf(Error);
      expect(e.report.reconciles.map((r) => `${r.outcome.request.name} ${r.outcome.kind}`)).toEqual(['a success', 'a-copy success']);
      expect(e.report.openWatches).toBe(1);
      const lines = e.message.split('\n').map((l) => l.trim());
      expect(lines[0]).toBe('the copy of a has v=2 did not hold within 500 ms of virtual time (ran 0 → 500 ms)');
      expect(lines[1]).toBe('last state: {"v":"1"}');
      expect(lines[2]).toMatch(/^last check: threw AssertionError: expected \{ v: '1' \} to deeply equal \{ v: '2' \}/);
      expect(lines[3]).toMatch(/^reconciles run: 2 \(copier-\d+ ×2\); last 2:$/);
      expect(lines[4]).toMatch(/^at 0 ms copier-\d+: default\/a success$/);
      expect(lines.at(-1)).toMatch(/^pending work: \d+ timers? \(next due \+\d+ ms.*\), 1 open watch$/);
    });
  });

  it('a condition returning false is reported as such; a never-started test reports no reconciles', async () => {
    await virtualTime(async ({ eventually }) => {
      const error = await eventually(() => false, { withinMs: 50 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventuallyTimeoutError);
      expect((error as Error).message).toBe(
        ['the condition did not hold within 50 ms of virtual time (ran 0 → 50 ms)', 'last check: returned false', 'reconciles run: none', 'pending work: 0 timers, 0 open watches'].join('\n  '),
      );
    });
  });

  it('names a started controller whose run ended with an error', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually }) => {
      const ctl = copier(cluster, scheduler);
      start(ctl);
      const second = start(ctl); // a controller runs once: the second run errors
      expect(second.ended).toBe(true);
      const error = (await eventually(() => false, { withinMs: 10 }).catch((e: unknown) => e)) as Error;
      expect(error.message).toContain(`controllers ended with an error: ${ctl.name}: ControllerStartedTwiceError`);
    });
  });
});

describe('converged', () => {
  it('runs until nothing is due soon and reports the reconciles run', async () => {
    await virtualTime(async ({ cluster, scheduler, start, converged }) => {
      cluster.seed([configMap('a', { v: '1' }), configMap('b', { v: '2' })]);
      start(copier(cluster, scheduler));
      scheduler.schedule(() => void cluster.update(configMap('a', { v: '3' })), 100);
      const first = await converged(); // the update at 100 is within the quiet window (1 s): run through it
      expect(scheduler.now()).toBe(100);
      expect(copyData(cluster, 'a')).toEqual({ v: '3' });
      expect(first.reconciles.map((r) => `${r.at} ${r.outcome.request.name}`)).toEqual(['0 a', '0 b', '0 a-copy', '0 b-copy', '100 a', '100 a-copy']);
      expect(first.pendingTimers.every((due) => due > 100 + 1_000)).toBe(true);
      const again = await converged(); // nothing left: returns at once
      expect(again.reconciles).toEqual([]);
      expect(scheduler.now()).toBe(100);
    });
  });

  it('fails when work stays due for the whole budget (a requeue loop), naming reconciles and timers', async () => {
    await virtualTime(async ({ cluster, scheduler, start, converged }) => {
      cluster.seed([configMap('a')]);
      start(copier(cluster, scheduler, 5)); // comes back every 5 ms, for ever
      const error = await converged({ withinMs: 100, quietMs: 10 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotConvergedError);
      const e = error as NotConvergedError;
      expect(e.code).toBe('TESTING_NOT_CONVERGED');
      expect(scheduler.now()).toBe(100);
      expect(e.report.reconciles.length).toBeGreaterThan(15);
      expect(e.report.pendingTimers[0]).toBeLessThanOrEqual(105);
      const lines = e.message.split('\n').map((l) => l.trim());
      expect(lines[0]).toBe('did not converge within 100 ms of virtual time (ran 0 → 100 ms): a timer was always due within 10 ms');
      expect(lines).toContainEqual(expect.stringMatching(/^at 100 ms copier-\d+: default\/a requeue_after 5$/));
      expect(lines.at(-2)).toMatch(/^pending work: \d+ timers \(next due \+[0-5] ms/);
      expect(lines.at(-1)).toMatch(/^requeues pending: copier-\d+: default\/a at \+5 ms$/);
      expect(e.report.pendingRequeues).toEqual([{ controller: expect.stringMatching(/^copier-/), key: 'default/a', dueAt: 105 }]);
    });
  });
});
