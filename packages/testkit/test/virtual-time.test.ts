/**
 * virtualTime + inProcessCluster: a controller whose reconcile is an ordinary async function
 * calling the client runs in virtual time against an embedded API server reached without HTTP.
 */
import { interval, map, timer } from 'rxjs';
import { AsyncAction } from 'rxjs/internal/scheduler/AsyncAction';
import { AsyncScheduler } from 'rxjs/internal/scheduler/AsyncScheduler';
import { describe, expect, it } from 'vitest';
import { resources } from 'rxkube';
import { controller } from 'rxkube';
import { inProcessCluster } from '../src/in-process-cluster.js';
import { virtualTime } from '../src/virtual-time.js';

const assertDeepEqual = (actual: unknown, expected: unknown): void => void expect(actual).toEqual(expected);
let n = 0;
const name = (): string => `vt-${++n}`;
const cm = (cmName: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1' as const, kind: 'ConfigMap' as const, metadata: { name: cmName, namespace: 'default' }, data });

describe('virtualTime', () => {
  it('an async reconcile awaiting client calls finishes in the frame its event arrived', async () => {
    await virtualTime(
      async ({ cluster, scheduler, expectObservable, flush }) => {
        cluster.seed([cm('a', { n: '1' })]);
        const informers = cluster.informers();
        const ctl = controller({
          name: name(),
          for: resources.configMaps,
          informers,
          client: cluster.client,
          scheduler,
          reconcile: async (req, ctx) => {
            const live = await ctx.objects().get(req.name);
            await ctx.objects().apply({ metadata: { name: req.name }, data: { seen: String(live.data?.['n'] ?? '') } }, { force: true });
          },
        });
        scheduler.schedule(() => void cluster.create(cm('b', { n: '2' })), 30);
        const outcomes = ctl.run().pipe(map((o) => `${o.request.name}:${o.kind}`));
        // a: listed at 0 (initial sync); its own write (apply) comes back as an event, and the
        // reconcile of it changes nothing. b: created at 30.
        expectObservable(outcomes, '^ 100ms !').toBe('(aA) 26ms (bB)', { a: 'a:success', A: 'a:success', b: 'b:success', B: 'b:success' });
        await flush();
        expect(cluster.get('v1', 'ConfigMap', 'b', 'default')?.['data']).toEqual({ n: '2', seen: '2' });
      },
      { assertDeepEqual },
    );
  });

  it('timers without a scheduler (asyncScheduler) run on the virtual clock; advance moves time', async () => {
    await virtualTime(async ({ scheduler, advance }) => {
      const seen: number[] = [];
      timer(5_000).subscribe(() => seen.push(scheduler.now()));
      await advance(4_999);
      expect(seen).toEqual([]);
      await advance(1);
      expect(seen).toEqual([5_000]);
      expect(Date.now()).toBeGreaterThan(1_000_000); // the global clock is real
    });
  });

  it('a real-time RxJS interval set before virtual time and cancelled during it is cleared on the real clock', async () => {
    // As a periodic action another test file left running in a shared test process.
    const real = new AsyncScheduler(AsyncAction);
    const flushReal = real.flush.bind(real);
    let ticks = 0;
    const cancelledRuns: unknown[] = [];
    real.flush = (action) => {
      try {
        flushReal(action);
      } catch (err) {
        cancelledRuns.push(err); // RxJS: "executing a cancelled action"
      }
    };
    const sub = interval(5, real).subscribe(() => ticks++);
    for (let i = 0; i < 100 && ticks < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(ticks).toBeGreaterThanOrEqual(2);
    await virtualTime(() => sub.unsubscribe());
    const ticksAtCancel = ticks;
    await new Promise((r) => setTimeout(r, 60));
    expect(cancelledRuns).toEqual([]);
    expect(ticks).toBe(ticksAtCancel);
  });

  it('inProcessCluster: requests and watches without sockets; errors are ApiErrors', async () => {
    const cluster = inProcessCluster();
    const cms = cluster.client.objects(resources.configMaps, 'default');
    await cms.create(cm('x'));
    await expect(cms.create(cm('x'))).rejects.toMatchObject({ statusCode: 409, code: 'API_ALREADY_EXISTS' });
    expect((await cms.list()).items.map((i) => i.metadata?.name)).toEqual(['x']);
    const informers = cluster.informers();
    const informer = informers.configMaps();
    informers.start();
    expect(await informers.waitForCacheSync(1_000)).toBe(true);
    cluster.create(cm('y'));
    await new Promise((r) => setTimeout(r, 20));
    expect(informer.store.listKeys().sort()).toEqual(['default/x', 'default/y']);
    expect(cluster.openWatches()).toBe(1);
    informers.stop();
    cluster.close();
    expect(cluster.requests.count({ method: 'POST' })).toBe(2);
  });
});
