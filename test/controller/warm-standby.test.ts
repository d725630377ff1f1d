/**
 * Warm standbys (issue 28, item 3; docs/leader-election.md "Warm standbys"), in virtual time with
 * an elector stub: a controller built with `warmup: true` registers on its sources and holds their
 * requests while the manager is not leading, reconciles and writes nothing, and reconciles at the
 * very moment leadership is gained — without waiting for a registration to sync.
 */
import { map, Subject, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnection, KubeRequest } from '../../src/client/kube-connection.js';
import { controller } from '../../src/controller/controller.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { manager } from '../../src/manager/manager.js';
import { added, fakeSource, updated } from '../../src/testing/controller-harness.js';
import { electorStub } from '../manager/elector-stub.js';
import { outcome, virtualTime, type VirtualTime } from '../manager/virtual-time.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string, rv = '1'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: rv } });

/** A logger that keeps every line with its fields. */
function keepingLogger(lines: { message: string; fields: LogFields | undefined }[]): Logger {
  const logger: Logger = {
    debug: (message, fields) => lines.push({ message, fields }),
    info: (message, fields) => lines.push({ message, fields }),
    warn: (message, fields) => lines.push({ message, fields }),
    error: (message, fields) => lines.push({ message, fields }),
    child: () => logger,
  };
  return logger;
}

/** A connection that records every request (virtual time, method, path) and answers at once. */
function recordingClient(vt: VirtualTime) {
  const sent: { at: number; method: string; path: string }[] = [];
  const connection = {
    request: (req: KubeRequest, signal?: AbortSignal): Promise<unknown> => {
      signal?.throwIfAborted();
      sent.push({ at: vt.scheduler.now(), method: req.method ?? 'GET', path: req.path });
      return Promise.resolve(cm('x'));
    },
  } as unknown as KubeConnection;
  return { client: new KubeClient(connection), sent };
}

/**
 * A manager with an elector stub and one controller over a fake source whose registrations sync
 * 50 virtual ms after they are made; each reconcile patches its object.
 */
function setup(warmup: boolean, syncAfterMs = 50) {
  const vt = virtualTime();
  const e = electorStub();
  const lines: { message: string; fields: LogFields | undefined }[] = [];
  const { client, sent } = recordingClient(vt);
  const events$ = new Subject<InformerEvent<KubeObject>>();
  const source = fakeSource({
    resource: CONFIG_MAPS,
    initial: [cm('a'), cm('b'), cm('c')],
    events$,
    synced$: timer(syncAfterMs, vt.scheduler).pipe(map(() => true)),
  });
  const reconciled: { at: number; name: string }[] = [];
  const ctrl = controller({
    name: `warm-${String(warmup)}`,
    for: source,
    client,
    scheduler: vt.scheduler,
    logger: keepingLogger(lines),
    warmup,
    reconcile: async (req, ctx) => {
      reconciled.push({ at: vt.scheduler.now(), name: req.name });
      await ctx.objects().patch(req.name, { data: { seen: 'yes' } });
    },
  });
  const mgr = manager({
    scheduler: vt.scheduler,
    logger: keepingLogger(lines),
    processMetrics: false,
    leaderElection: { id: 'warm', namespace: 'ns', elector: e.factory },
  });
  mgr.add(ctrl);
  return { vt, e, lines, sent, events$, source, reconciled, mgr };
}

describe('warm standby (controller option `warmup`)', () => {
  it('registers on the sources and holds one request per key before leadership, reconciling and writing nothing', async () => {
    const { vt, e, lines, sent, events$, source, reconciled, mgr } = setup(true);
    const result = outcome(mgr.start());
    await vt.advance(100);
    expect(e.events).toEqual(['campaign']);
    expect(source.registrations).toBe(1);
    // Events while standing by are held too, coalesced per key.
    events$.next(added(cm('d')));
    for (let rv = 2; rv < 50; rv++) events$.next(updated(cm('a', String(rv - 1)), cm('a', String(rv))));
    await vt.advance(10_000);
    expect(reconciled).toEqual([]);
    expect(sent).toEqual([]);
    expect(lines.some((l) => l.message === 'Starting workers')).toBe(false);

    e.leading.next(true);
    await vt.advance(0);
    const warmStart = lines.find((l) => l.message === 'Starting warm controller');
    expect(warmStart?.fields).toEqual({ heldRequests: 4, unsyncedSources: 0 });
    expect(reconciled.map((r) => r.name).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(source.registrations).toBe(1); // taken over, not registered again
    expect(sent.every((r) => r.method === 'PATCH' && r.at === 10_100)).toBe(true);
    expect(sent).toHaveLength(4);
    expect(result.settled).toBe(false);
  });

  it('reconciles at the moment leadership is gained; without warm-up the registration first waits for its sync', async () => {
    const firstReconcileAfterLeadership = async (warmup: boolean): Promise<number | undefined> => {
      const { vt, e, reconciled, source, mgr } = setup(warmup);
      void outcome(mgr.start());
      await vt.advance(100);
      expect(source.registrations).toBe(warmup ? 1 : 0);
      e.leading.next(true);
      await vt.advance(200);
      const first = reconciled[0];
      return first === undefined ? undefined : first.at - 100;
    };
    expect(await firstReconcileAfterLeadership(true)).toBe(0);
    expect(await firstReconcileAfterLeadership(false)).toBe(50);
  });

  it('gaining leadership before the warm registration synced waits only for the rest of its sync', async () => {
    const { vt, e, lines, reconciled, source, mgr } = setup(true, 500);
    void outcome(mgr.start());
    await vt.advance(100);
    e.leading.next(true);
    await vt.advance(0);
    expect(lines.find((l) => l.message === 'Starting warm controller')?.fields).toEqual({ heldRequests: 3, unsyncedSources: 1 });
    expect(reconciled).toEqual([]);
    await vt.advance(1_000);
    expect(reconciled[0]?.at).toBe(500);
    expect(source.registrations).toBe(1);
  });

  it('a manager stopped before it leads releases the warm registration and never reconciles', async () => {
    const { vt, events$, reconciled, sent, mgr } = setup(true);
    const ac = new AbortController();
    const result = outcome(mgr.start(ac.signal));
    await vt.advance(100);
    expect(events$.observed).toBe(true);
    ac.abort();
    await vt.advance(100);
    expect(result.settled).toBe(true);
    expect(result.error).toBeUndefined();
    expect(events$.observed).toBe(false);
    expect(reconciled).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('a source failing while warming fails the manager with its error', async () => {
    const { vt, events$, reconciled, mgr } = setup(true);
    const result = outcome(mgr.start());
    await vt.advance(100);
    const boom = new Error('watch broke');
    events$.error(boom);
    await vt.advance(100);
    expect(result.settled).toBe(true);
    expect(result.error).toBe(boom);
    expect(reconciled).toEqual([]);
  });

  it('losing leadership after leading fences and stops as without warm-up', async () => {
    const { vt, e, reconciled, sent, events$, mgr } = setup(true);
    const result = outcome(mgr.start());
    await vt.advance(100);
    e.leading.next(true);
    await vt.advance(10);
    expect(reconciled).toHaveLength(3);
    e.leading.next(false);
    await vt.advance(1);
    const before = sent.length;
    events$.next(added(cm('late')));
    await vt.advance(1_000);
    expect(result.settled).toBe(true);
    expect((result.error as Error).name).toBe('LeaderElectionLostError');
    expect(reconciled).toHaveLength(3);
    expect(sent).toHaveLength(before);
  });
});
