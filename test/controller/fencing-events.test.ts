/**
 * Fencing of Events on lost leadership, in virtual time: the Events a controller records through
 * `ctx.recorder` (the manager's recorder for the controller), and those any runnable records
 * through a recorder from `mgr.getEventRecorder()`, are not sent once the loss is observed — those recorded after it are refused, those still queued are dropped, counted in
 * `rxkube_events_fenced_total` and logged once with the count — while a graceful stop still
 * writes every queued Event before the recorders shut down.
 */
import { timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnection, KubeRequest } from '../../src/client/kube-connection.js';
import { controller } from '../../src/controller/controller.js';
import type { ReconcileContext } from '../../src/controller/reconcile-context.js';
import { FencedWriteError } from '../../src/controller/fenced-client.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { leaseLeadership } from '../../src/manager/lease-leadership.js';
import { manager, type Manager } from '../../src/manager/manager.js';
import { LeaderElectionLostError } from '../../src/manager/manager-errors.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';
import type { Request } from '../../src/workqueue/request.js';
import type { Runnable } from '../../src/api/runnable.js';
import { outcome, virtualTime, type VirtualTime } from '../manager/virtual-time.js';
import { electorStub } from '../manager/elector-stub.js';
import { stealLease } from './lease-theft.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: '1' } });
const EVENTS_PATH = '/api/v1/namespaces/ns/events';
const DROP_LOG = 'the right to write was lost (fenced): dropping events not sent yet';

interface Line {
  readonly at: number;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

/** A logger that keeps every line with its virtual time. */
function keepingLogger(vt: VirtualTime) {
  const lines: Line[] = [];
  const logger: Logger = {
    debug: (message, fields) => lines.push({ at: vt.scheduler.now(), message, fields }),
    info: (message, fields) => lines.push({ at: vt.scheduler.now(), message, fields }),
    warn: (message, fields) => lines.push({ at: vt.scheduler.now(), message, fields }),
    error: (message, fields) => lines.push({ at: vt.scheduler.now(), message, fields }),
    child: () => logger,
  };
  return { logger, lines, at: (message: string) => lines.find((l) => l.message === message)?.at };
}

/**
 * A connection that records every request it is asked to send: Events take `eventLatencyMs`
 * virtual ms to be answered (so they queue up), other writes 10; discovery serves no
 * events.k8s.io/v1, so the recorder writes core/v1 Events.
 */
function recordingClient(vt: VirtualTime, eventLatencyMs: number) {
  const sent: { at: number; method: string; path: string; message?: string }[] = [];
  const connection = {
    observeRequests: () => () => undefined,
    request: (req: KubeRequest, signal?: AbortSignal): Promise<unknown> => {
      signal?.throwIfAborted();
      const method = req.method ?? 'GET';
      const body = req.body as { message?: string } | undefined;
      sent.push({ at: vt.scheduler.now(), method, path: req.path, ...(body?.message === undefined ? {} : { message: body.message }) });
      if (method === 'GET') return Promise.resolve({ resources: [] });
      const answer = req.path === EVENTS_PATH ? { ...(req.body as object), metadata: { ...(req.body as KubeObject).metadata, resourceVersion: '1' } } : cm('x');
      return new Promise((resolve) => timer(req.path === EVENTS_PATH ? eventLatencyMs : 10, vt.scheduler).subscribe(() => resolve(answer)));
    },
  } as unknown as KubeConnection;
  const events = () => sent.filter((r) => r.method === 'POST' && r.path === EVENTS_PATH);
  return { client: new KubeClient(connection), sent, events };
}

async function fencedTotal(mgr: Manager, component: string): Promise<number | undefined> {
  const metric = await mgr.metrics.registry.getSingleMetric('rxkube_events_fenced_total')?.get();
  return metric?.values.find((v) => v.labels['component'] === component)?.value;
}

/** Records `n` Events about distinct objects (so neither the spam filter nor aggregation merges them). */
function recordBurst(ctx: ReconcileContext, req: Request, tag: string, n: number): void {
  for (let k = 0; k < n; k++) ctx.recorder.event(cm(`${req.name}-${tag}-${k}`), 'Normal', 'Progress', `${tag} ${k}`);
}

/**
 * A manager of `ctrl` under the stub elector (lease `id`), started and, 10 ms later, leading: its
 * stop controller and the outcome of `start`.
 */
async function startLeading(vt: VirtualTime, client: KubeClient, logger: Logger, elector: ReturnType<typeof electorStub>, id: string, ctrl: Runnable) {
  const mgr = manager({
    client,
    scheduler: vt.scheduler,
    logger,
    processMetrics: false,
    gracefulShutdownTimeoutMs: 30_000,
    leaderElection: { id, namespace: 'kube-system', identity: 'me', elector: elector.factory },
  });
  mgr.add(ctrl);
  const stop = new AbortController();
  const result = outcome(mgr.start(stop.signal));
  await vt.advance(10);
  elector.leading.next(true);
  return { mgr, stop, result };
}

describe('fencing of Events on lost leadership', () => {
  it('sends no Event after the Lease is stolen: queued ones are dropped (counted, logged once), later ones refused', async () => {
    const vt = virtualTime();
    const api = new InMemoryLeaseApi({ scheduler: vt.scheduler });
    const { client, sent, events } = recordingClient(vt, 50);
    const log = keepingLogger(vt);
    const reconciled: string[] = [];
    const writeErrors: unknown[] = [];
    const ctrl = controller({
      name: 'fencing-events',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')] }),
      client,
      scheduler: vt.scheduler,
      // Ignores its signal: every 100 ms, 3 Events (150 ms of writing: the queue grows) and a patch,
      // until a write fails; then one more Event, recorded after the loss.
      reconcile: async (req, ctx) => {
        reconciled.push(req.name);
        for (let i = 0; ; i++) {
          recordBurst(ctx, req, `round-${i}`, 3);
          try {
            await ctx.objects().patch(req.name, { data: { seq: String(i) } });
          } catch (err) {
            writeErrors.push(err);
            ctx.recorder.event(ctx.object ?? cm(req.name), 'Warning', 'WriteFenced', 'recorded after the loss');
            return;
          }
          await vt.sleep(100);
        }
      },
    });
    const mgr = manager({
      client,
      scheduler: vt.scheduler,
      logger: log.logger,
      processMetrics: false,
      gracefulShutdownTimeoutMs: 30_000,
      leaderElection: {
        id: 'fencing-events',
        namespace: 'kube-system',
        identity: 'me',
        elector: leaseLeadership(api.client('me'), { scheduler: vt.scheduler }),
      },
    });
    mgr.add(ctrl);
    const result = outcome(mgr.start());
    await vt.advance(3_000);
    expect(reconciled).toEqual(['a']);
    expect(events().length).toBeGreaterThan(20);
    expect(await fencedTotal(mgr, 'fencing-events')).toBe(0);

    await stealLease(vt, api, 'fencing-events');
    for (let t = 0; t < 40 && log.at('leader election lost') === undefined; t++) await vt.advance(500);
    const lost = log.at('leader election lost');
    expect(lost).toBeDefined();
    await vt.advance(35_000);

    // Nothing at all left the process after the loss: no write, no Event.
    expect(sent.filter((r) => r.at > (lost as number))).toEqual([]);
    // The Events queued at the loss were dropped, in one go, logged once with their count.
    const drops = log.lines.filter((l) => l.message === DROP_LOG);
    expect(drops).toHaveLength(1);
    expect(drops[0]?.at).toBe(lost);
    const dropped = drops[0]?.fields?.['dropped'] as number;
    expect(dropped).toBeGreaterThan(3);
    // ... and counted (with any recorded after the loss while the recorder still ran: refused).
    expect(writeErrors[0]).toBeInstanceOf(FencedWriteError);
    expect(await fencedTotal(mgr, 'fencing-events')).toBeGreaterThanOrEqual(dropped);
    expect(events().some((e) => e.message === 'recorded after the loss')).toBe(false);
    // The controller and manager stop as before.
    expect(reconciled).toEqual(['a']);
    expect(result.settled).toBe(true);
    expect(result.error).toBeInstanceOf(LeaderElectionLostError);
  });

  it.each([
    ['the controller already stopped, its Events still being flushed', false],
    ['the controller still draining, its reconcile still recording', true],
  ])('drops the queued Events when leadership is lost while stopping gracefully (%s)', async (_, keepsRecording) => {
    const vt = virtualTime();
    const elector = electorStub();
    const { client, events } = recordingClient(vt, 50);
    const log = keepingLogger(vt);
    const ctrl = controller({
      name: 'fencing-events-stopping',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')] }),
      client,
      scheduler: vt.scheduler,
      reconcile: async (req, ctx) => {
        recordBurst(ctx, req, 'burst', 40); // 2 s of writing
        // Either returns at once, or goes on recording during the grace period (ignoring the stop).
        for (let i = 0; keepsRecording; i++) {
          await vt.sleep(100);
          recordBurst(ctx, req, `round-${i}`, 1);
        }
      },
    });
    const { mgr, stop, result } = await startLeading(vt, client, log.logger, elector, 'fencing-events-stopping', ctrl);
    await vt.advance(100);
    stop.abort(); // graceful: the Events queued are flushed within the grace period...
    await vt.advance(400);
    const before = events().length;
    expect(before).toBeGreaterThan(0);
    const lostAt = vt.scheduler.now();
    elector.leading.next(false); // ... until leadership is lost
    await vt.advance(35_000);

    expect(events().filter((e) => e.at > lostAt)).toEqual([]);
    const drops = log.lines.filter((l) => l.message === DROP_LOG);
    expect(drops).toHaveLength(1);
    expect(drops[0]?.at).toBe(lostAt);
    const dropped = drops[0]?.fields?.['dropped'] as number;
    expect(before + dropped).toBeGreaterThanOrEqual(40);
    expect(await fencedTotal(mgr, 'fencing-events-stopping')).toBeGreaterThanOrEqual(dropped);
    expect(result.settled).toBe(true);
  });

  it("fences every recorder the manager hands out, not only ctx.recorder: a runnable's own Events stop at the loss too", async () => {
    const vt = virtualTime();
    const elector = electorStub();
    const { client, events } = recordingClient(vt, 50);
    const log = keepingLogger(vt);
    const ctrl = controller({
      name: 'fencing-events-quiet',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [] }),
      client,
      scheduler: vt.scheduler,
      reconcile: () => undefined,
    });
    const { mgr, stop, result } = await startLeading(vt, client, log.logger, elector, 'fencing-events-side', ctrl);
    // A leader-only runnable recording through a recorder taken from the manager directly (as a
    // custom runnable would), and a runnable of every replica doing the same, both ignoring their
    // stop signal: 2 Events every 100 ms, each taking 50 ms to send (the queue grows).
    const recording = (component: string, needLeaderElection: boolean): Runnable => ({
      name: component,
      needLeaderElection,
      start: () => {
        const recorder = mgr.getEventRecorder(component);
        let n = 0;
        const sub = timer(0, 100, vt.scheduler).subscribe(() => {
          for (let k = 0; k < 2; k++, n++) recorder.event(cm(`${component}-${n}`), 'Normal', 'Tick', `${component} ${n}`);
        });
        return new Promise<void>((resolve) => timer(60_000, vt.scheduler).subscribe(() => (sub.unsubscribe(), resolve())));
      },
    });
    mgr.add(recording('side-leader', true));
    mgr.add(recording('side-every-replica', false));
    await vt.advance(1_000);
    const sideEvents = () => events().filter((e) => e.message?.startsWith('side-') === true);
    expect(sideEvents().length).toBeGreaterThan(10);
    stop.abort(); // graceful: both go on recording, their Events are written within the grace period...
    await vt.advance(1_000);
    const beforeLoss = sideEvents().length;
    expect(beforeLoss).toBeGreaterThan(20);
    expect(await fencedTotal(mgr, 'side-leader')).toBe(0);

    const lostAt = vt.scheduler.now();
    elector.leading.next(false); // ... until leadership is lost
    await vt.advance(35_000);

    expect(sideEvents().filter((e) => e.at > lostAt)).toEqual([]);
    expect(await fencedTotal(mgr, 'side-leader')).toBeGreaterThan(0);
    expect(await fencedTotal(mgr, 'side-every-replica')).toBeGreaterThan(0);
    expect(result.settled).toBe(true);
  });

  it('writes every queued Event on a graceful stop (no loss), after the controller stopped', async () => {
    const vt = virtualTime();
    const elector = electorStub();
    const { client, events } = recordingClient(vt, 50);
    const log = keepingLogger(vt);
    const ctrl = controller({
      name: 'graceful-events',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')] }),
      client,
      scheduler: vt.scheduler,
      reconcile: (req, ctx) => recordBurst(ctx, req, 'burst', 40), // 2 s of writing
    });
    const { mgr, stop, result } = await startLeading(vt, client, log.logger, elector, 'graceful-events', ctrl);
    await vt.advance(100);
    const stoppedAt = vt.scheduler.now();
    stop.abort();
    await vt.advance(5_000);

    expect(result.settled).toBe(true);
    expect(result.error).toBeUndefined();
    expect(events()).toHaveLength(40);
    expect(events().filter((e) => e.at > stoppedAt).length).toBeGreaterThan(30);
    expect(log.lines.filter((l) => l.message === DROP_LOG)).toEqual([]);
    expect(await fencedTotal(mgr, 'graceful-events')).toBe(0);
  });
});
