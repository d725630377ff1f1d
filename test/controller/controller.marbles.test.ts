/**
 * A controller tested end to end in virtual time: informer events go in as marbles, reconcile
 * outcomes come out as marbles, and every requeue lands on the frame the result asked for.
 * This is the pattern of examples/marble-test.
 */
import { map, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { controller } from '../../src/controller/controller.js';
import { indexMapper } from '../../src/controller/index-mapper.js';
import { added, deleted, fakeSource, updated } from '../../src/testing/controller-harness.js';
import type { ReconcileOutcome, ReconcileResult } from '../../src/workqueue/reconcile-result.js';
import { exponentialFailureRateLimiter } from '../../src/workqueue/exponential-failure-rate-limiter.js';
import { TerminalError } from '../../src/workqueue/terminal-error.js';
import { marbles } from '../helpers/marbles.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
let seq = 0;
const uniqueName = (base: string): string => `${base}-${++seq}`;
const cm = (name: string, rv = '1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});
/** One letter per outcome: the key's name, upper-case for errors. */
const letter = (o: ReconcileOutcome): string =>
  o.kind === 'error' || o.kind === 'terminal_error' ? o.request.name.toUpperCase() : o.request.name;

describe('controller in virtual time', () => {
  it(
    'reconciles the initial list, live events, and requeues at the requested frames',
    marbles((m) => {
      // a is listed before the start; b arrives at frame 2; a changes at frame 7.
      const events$ = m.hot('--b----u', { b: added(cm('b')), u: updated(cm('a'), cm('a', '2')) });
      const configMaps = fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')], events$ });
      const calls: string[] = [];
      const results: Record<string, ReconcileResult[]> = { b: [{ requeueAfter: 10 }] };

      const c = controller({
        name: uniqueName('marble'),
        for: configMaps,
        scheduler: m.scheduler,
        // every reconcile takes 2 frames; b asks to come back 10 frames later, once
        reconcile: (req, ctx) => {
          calls.push(`${req.name}@${m.scheduler.now()} rv=${ctx.store.get(`ns/${req.name}`)?.metadata?.resourceVersion}`);
          return timer(2).pipe(map(() => results[req.name]?.shift()));
        },
      });

      //                                  a done  b done (requeue after 10)  a again  b again at 4+10+2
      m.expect(c.run().pipe(map(letter))).toBeObservable('--a-b----a------b');
      m.flush();
      expect(calls).toEqual(['a@0 rv=1', 'b@2 rv=1', 'a@7 rv=2', 'b@14 rv=1']);
    }),
  );

  it(
    'retries errors with growing backoff and stops on a terminal error',
    marbles((m) => {
      const configMaps = fakeSource({ resource: CONFIG_MAPS, initial: [cm('x'), cm('t')] });
      let xCalls = 0;
      const c = controller({
        name: uniqueName('marble-errors'),
        for: configMaps,
        scheduler: m.scheduler,
        concurrency: 2,
        rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 10 }), // 10, 20, 40 … frames
        reconcile: (req) => {
          if (req.name === 't') throw new TerminalError(new Error('bad spec'));
          xCalls++;
          if (xCalls <= 2) throw new Error('transient');
          return undefined;
        },
      });
      // x fails at 0 (retry after 10), fails at 10 (retry after 20), succeeds at 30; t fails once, terminally.
      m.expect(c.run().pipe(map(letter))).toBeObservable('(XT)------X-------------------x');
    }),
  );

  it(
    'deletes (also tombstones) enqueue the deleted key; the reconcile sees it gone from the store',
    marbles((m) => {
      const events$ = m.hot('-----d--t', { d: deleted(cm('a')), t: deleted(cm('b'), true) });
      const configMaps = fakeSource({ resource: CONFIG_MAPS, initial: [cm('a'), cm('b')], events$ });
      const seen: string[] = [];
      const c = controller({
        name: uniqueName('marble-delete'),
        for: configMaps,
        scheduler: m.scheduler,
        reconcile: (req, ctx) => {
          seen.push(`${req.name}:${ctx.store.has(`ns/${req.name}`) ? 'present' : 'gone'}`);
        },
      });
      m.expect(c.run().pipe(map(letter))).toBeObservable('(ab)-a--b');
      m.flush();
      expect(seen).toEqual(['a:present', 'b:present', 'a:gone', 'b:gone']);
    }),
  );

  it(
    'waits for the caches to sync before the first reconcile (CR-5)',
    marbles((m) => {
      const configMaps = fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')], synced$: m.cold('-----t', { t: true }) });
      const c = controller({ name: uniqueName('marble-sync'), for: configMaps, scheduler: m.scheduler, reconcile: () => undefined });
      m.expect(c.run().pipe(map(letter))).toBeObservable('-----a');
    }),
  );

  it(
    'stops gracefully when its signal aborts: the running reconcile finishes, then the stream completes',
    marbles((m) => {
      const events$ = m.hot('--b', { b: added(cm('b')) });
      const configMaps = fakeSource({ resource: CONFIG_MAPS, events$ });
      const stop = new AbortController();
      m.scheduler.schedule(() => stop.abort(), 3);
      const c = controller({
        name: uniqueName('marble-stop'),
        for: configMaps,
        scheduler: m.scheduler,
        reconcile: () => timer(4).pipe(map(() => undefined)),
      });
      m.expect(c.run(stop.signal).pipe(map(letter))).toBeObservable('------(b|)');
    }),
  );

  it(
    'watches with a filter: an object leaving the filter still enqueues its mapped request (CT-3)',
    marbles((m) => {
      const pod = (app: string, rv: string): KubeObject => ({ metadata: { namespace: 'ns', name: 'p', resourceVersion: rv, labels: { app, group: 'g1' } } });
      const podEvents = () => m.hot('-a--u', { a: added(pod('web', '1')), u: updated(pod('web', '1'), pod('db', '2')) });
      const run = (useFilter: boolean) => {
        const pods = fakeSource({ resource: { apiVersion: 'v1', kind: 'Pod', namespaced: true }, events$: podEvents() });
        const isWeb = (o: KubeObject) => o.metadata?.labels?.app === 'web';
        const c = controller({
          name: uniqueName('marble-filter'),
          watches: [
            {
              source: pods,
              map: (o) => [{ namespace: 'ns', name: o.metadata?.labels?.group ?? '' }],
              ...(useFilter ? { filter: isWeb } : { predicates: [(e: InformerEvent) => e.type === 'delete' || isWeb(e.object as KubeObject)] }),
            },
          ],
          scheduler: m.scheduler,
          reconcile: () => undefined,
        });
        return c.run().pipe(map(letter));
      };
      // with the filter, the update that leaves it arrives as a delete → g1 is reconciled again
      m.expect(run(true)).toBeObservable('-g--g', { g: 'g1' });
      // a plain predicate on the new object drops that update
      m.expect(run(false)).toBeObservable('-g', { g: 'g1' });
    }),
  );

  it(
    'ready$ turns true when the workers start (caches synced) and false when the controller stops',
    marbles((m) => {
      const configMaps = fakeSource({ resource: CONFIG_MAPS, synced$: m.cold('-----t', { t: true }) });
      const c = controller({ name: uniqueName('marble-ready'), for: configMaps, scheduler: m.scheduler, reconcile: () => undefined });
      expect(() => c.readyCheck()).toThrow(/not running/);
      m.expect(c.ready$).toBeObservable('f----t---f', { f: false, t: true });
      m.expect(c.run(), '^--------!').toBeObservable('-');
    }),
  );

  it(
    'joins inside a controller: pods are reconciled when their node changes (watches + indexMapper)',
    marbles((m) => {
      type Pod = KubeObject & { spec: { nodeName: string } };
      const pod = (name: string, nodeName: string): Pod => ({ metadata: { namespace: 'ns', name, resourceVersion: '1' }, spec: { nodeName } });
      const node = (name: string, rv: string): KubeObject => ({ metadata: { name, resourceVersion: rv } });
      const pods = fakeSource<Pod>({
        resource: { apiVersion: 'v1', kind: 'Pod', namespaced: true },
        initial: [pod('a', 'n1'), pod('b', 'n2'), pod('c', 'n1')],
        indexers: { node: (p) => [p.spec.nodeName] },
      });
      const nodes = fakeSource({
        resource: { apiVersion: 'v1', kind: 'Node', namespaced: false },
        initial: [node('n1', '1'), node('n2', '1')],
        events$: m.hot('-----u', { u: updated(node('n1', '1'), node('n1', '2')) }),
      });
      const c = controller({
        name: uniqueName('marble-join'),
        for: pods,
        watches: [{ source: nodes, map: indexMapper(pods.store, 'node', (n) => [n.metadata?.name ?? '']) }],
        scheduler: m.scheduler,
        reconcile: () => undefined,
      });
      // the initial lists (pods, and pods via nodes, deduplicated) at 0; the node update at 5 → a and c
      m.expect(c.run().pipe(map(letter))).toBeObservable('(abc)(ac)');
    }),
  );

  it(
    'a watches entry with a priority goes ahead of queued work (drain acknowledgements use this)',
    marbles((m) => {
      // One worker, each reconcile 5 frames. a, b, c queue at frame 1; z (priority 10) at frame 2.
      const plain$ = m.hot('-(abc)', { a: added(cm('a')), b: added(cm('b')), c: added(cm('c')) });
      const urgent$ = m.hot('--z', { z: added(cm('z')) });
      const c = controller({
        name: uniqueName('marble-priority'),
        watches: [
          { source: fakeSource({ resource: CONFIG_MAPS, events$: plain$ }), map: (o) => [{ namespace: 'ns', name: o.metadata?.name ?? '' }] },
          { source: fakeSource({ resource: CONFIG_MAPS, events$: urgent$ }), map: (o) => [{ namespace: 'ns', name: o.metadata?.name ?? '' }], priority: 10 },
        ],
        concurrency: 1,
        scheduler: m.scheduler,
        reconcile: () => timer(5, m.scheduler).pipe(map(() => undefined)),
      });
      // a is running when z arrives; z is next, before b and c.
      m.expect(c.run().pipe(map(letter))).toBeObservable('------a----z----b----c');
    }),
  );

  it(
    'a throwing request mapping drops that event (logged) and the controller keeps running',
    marbles((m) => {
      const errors: string[] = [];
      const logger = {
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: (msg: string) => void errors.push(msg),
        child() {
          return logger;
        },
      };
      const events$ = m.hot('-a-b', { a: added(cm('boom')), b: added(cm('fine')) });
      const c = controller({
        name: uniqueName('marble-throwing-map'),
        watches: [
          {
            source: fakeSource({ resource: CONFIG_MAPS, events$ }),
            map: (o) => {
              if (o.metadata?.name === 'boom') throw new Error('bad mapping');
              return [{ namespace: 'ns', name: `${o.metadata?.name}-x` }];
            },
          },
        ],
        logger,
        scheduler: m.scheduler,
        reconcile: () => undefined,
      });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('---f', { f: 'fine-x' });
      m.flush();
      expect(errors).toEqual(['event dropped: a filter, predicate or request mapping threw']);
    }),
  );

  it('invalid options are build errors, and a failed build does not take the name', () => {
    const src = fakeSource({ resource: CONFIG_MAPS });
    const name = uniqueName('bad-build');
    expect(() => controller({ name, for: src, concurrency: 1.5, reconcile: () => undefined })).toThrow(/concurrency must be an integer/);
    expect(() => controller({ name, for: src, cacheSyncTimeoutMs: Number.NaN, reconcile: () => undefined })).toThrow(/cacheSyncTimeout/);
    expect(() => controller({ name, for: src, reconcile: () => undefined })).not.toThrow();
  });
});
