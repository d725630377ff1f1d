/**
 * Fencing on lost leadership (issue 26, finding 1), in virtual time over the in-memory Lease API:
 * another identity takes the Lease while a reconcile is mid-way. The moment the manager sees the
 * loss, the reconcile's `ctx.signal` aborts (reason: the manager's `LeaderElectionLostError`),
 * nothing more is dequeued, and the writes the reconcile still tries through `ctx` are refused
 * locally with `FencedWriteError` — no request reaches the connection after the loss.
 */
import { Subject, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnection, KubeRequest } from '../../src/client/kube-connection.js';
import { controller } from '../../src/controller/controller.js';
import { FencedWriteError } from '../../src/controller/fenced-client.js';
import { LeadershipLostError } from '../../src/leader-election/leadership-lost-error.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { leaseLeadership } from '../../src/manager/lease-leadership.js';
import { manager } from '../../src/manager/manager.js';
import { LeaderElectionLostError } from '../../src/manager/manager-errors.js';
import { added, fakeSource } from '../../src/testing/controller-harness.js';
import { InMemoryLeaseApi } from '../../src/testing/in-memory-lease-api.js';
import { outcome, virtualTime, type VirtualTime } from '../manager/virtual-time.js';
import { electorStub } from '../manager/elector-stub.js';
import { stealLease } from './lease-theft.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: '1' } });

/** A logger that calls `onMessage` for every line. */
function hookLogger(onMessage: (message: string, fields: LogFields | undefined) => void): Logger {
  const logger: Logger = {
    debug: (m, f) => onMessage(m, f),
    info: (m, f) => onMessage(m, f),
    warn: (m, f) => onMessage(m, f),
    error: (m, f) => onMessage(m, f),
    child: () => logger,
  };
  return logger;
}

/** A connection that records every request it is asked to send and answers after 10 virtual ms. */
function recordingClient(vt: VirtualTime) {
  const sent: { at: number; method: string; path: string }[] = [];
  const connection = {
    request: (req: KubeRequest, signal?: AbortSignal): Promise<unknown> => {
      signal?.throwIfAborted();
      sent.push({ at: vt.scheduler.now(), method: req.method ?? 'GET', path: req.path });
      return new Promise((resolve) => timer(10, vt.scheduler).subscribe(() => resolve(cm('x'))));
    },
  } as unknown as KubeConnection;
  return { client: new KubeClient(connection), sent };
}

describe('fencing on lost leadership', () => {
  it('aborts the running reconcile at once, dequeues nothing more and refuses its later writes before they are sent', async () => {
    const vt = virtualTime();
    const api = new InMemoryLeaseApi({ scheduler: vt.scheduler });
    const { client, sent } = recordingClient(vt);
    let lostAt: number | undefined;
    const logger = hookLogger((message) => {
      if (message === 'leader election lost') lostAt = vt.scheduler.now();
    });
    const events$ = new Subject<InformerEvent<KubeObject>>();
    const source = fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')], events$ });
    const reconciled: string[] = [];
    const aborts: { at: number; reason: unknown }[] = [];
    const writeErrors: unknown[] = [];
    const ctrl = controller({
      name: 'fencing-unit',
      for: source,
      client,
      scheduler: vt.scheduler,
      // A reconcile that ignores its signal: it patches every 100 ms until a write fails.
      reconcile: async (req, ctx) => {
        reconciled.push(req.name);
        ctx.signal.addEventListener('abort', () => aborts.push({ at: vt.scheduler.now(), reason: ctx.signal.reason }));
        for (let i = 0; ; i++) {
          try {
            await ctx.objects().patch(req.name, { data: { seq: String(i) } });
          } catch (err) {
            writeErrors.push(err);
            return;
          }
          await vt.sleep(100);
        }
      },
    });
    const mgr = manager({
      scheduler: vt.scheduler,
      logger,
      processMetrics: false,
      gracefulShutdownTimeoutMs: 30_000,
      leaderElection: {
        id: 'fencing-unit',
        namespace: 'kube-system',
        identity: 'me',
        elector: leaseLeadership(api.client('me'), { scheduler: vt.scheduler }),
      },
    });
    mgr.add(ctrl);
    const result = outcome(mgr.start());
    await vt.advance(3_000);
    expect(reconciled).toEqual(['a']);
    expect(sent.length).toBeGreaterThan(5);

    // Another identity takes the Lease.
    await stealLease(vt, api, 'fencing-unit');
    for (let t = 0; t < 40 && lostAt === undefined; t++) await vt.advance(500);
    expect(lostAt).toBeDefined();
    // A new event after the loss is not reconciled.
    events$.next(added(cm('b')));
    await vt.advance(35_000);

    const lost = lostAt as number;
    expect(aborts).toHaveLength(1);
    expect(aborts[0]?.at).toBe(lost);
    expect(aborts[0]?.reason).toBeInstanceOf(LeaderElectionLostError);
    expect(aborts[0]?.reason).toBeInstanceOf(LeadershipLostError);
    expect(sent.filter((r) => r.at > lost)).toEqual([]);
    expect(writeErrors).toHaveLength(1);
    expect(writeErrors[0]).toBeInstanceOf(FencedWriteError);
    expect((writeErrors[0] as FencedWriteError).code).toBe('CONTROLLER_FENCED_WRITE');
    expect((writeErrors[0] as FencedWriteError).method).toBe('PATCH');
    expect(reconciled).toEqual(['a']);
    expect(result.settled).toBe(true);
    expect(result.error).toBeInstanceOf(LeaderElectionLostError);
  });

  it('fences a controller that is already stopping gracefully when leadership is lost', async () => {
    const vt = virtualTime();
    const elector = electorStub();
    const { client, sent } = recordingClient(vt);
    const aborts: { at: number; reason: unknown }[] = [];
    const writeErrors: unknown[] = [];
    const ctrl = controller({
      name: 'fencing-draining',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')] }),
      client,
      scheduler: vt.scheduler,
      reconcile: async (req, ctx) => {
        ctx.signal.addEventListener('abort', () => aborts.push({ at: vt.scheduler.now(), reason: ctx.signal.reason }));
        for (let i = 0; ; i++) {
          try {
            await ctx.objects().patch(req.name, { data: { seq: String(i) } });
          } catch (err) {
            writeErrors.push(err);
            return;
          }
          await vt.sleep(100);
        }
      },
    });
    const mgr = manager({
      scheduler: vt.scheduler,
      logger: hookLogger(() => undefined),
      processMetrics: false,
      gracefulShutdownTimeoutMs: 30_000,
      leaderElection: { id: 'fencing-draining', namespace: 'kube-system', identity: 'me', elector: elector.factory },
    });
    mgr.add(ctrl);
    const stop = new AbortController();
    const result = outcome(mgr.start(stop.signal));
    await vt.advance(10);
    elector.leading.next(true);
    await vt.advance(1_000);
    stop.abort(); // graceful: the reconcile may go on for up to 30 s
    await vt.advance(1_000);
    expect(aborts).toEqual([]);
    const lostAt = vt.scheduler.now();
    elector.leading.next(false);
    await vt.advance(5_000);
    expect(aborts).toHaveLength(1);
    expect(aborts[0]?.at).toBe(lostAt);
    expect(aborts[0]?.reason).toBeInstanceOf(LeadershipLostError);
    expect(sent.filter((r) => r.at > lostAt)).toEqual([]);
    expect(writeErrors[0]).toBeInstanceOf(FencedWriteError);
    expect(result.settled).toBe(true);
  });
});
