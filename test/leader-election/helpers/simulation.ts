import { Cluster, seededRandom } from './harness.js';

/** Faults injected on the current leader, one at a time. */
export type FaultKind = 'kill' | 'pause' | 'partition' | 'lost-renewals' | 'slow-network' | 'graceful-stop';

export const FAULT_KINDS: readonly FaultKind[] = ['kill', 'pause', 'partition', 'lost-renewals', 'slow-network', 'graceful-stop'];

export interface SimulationOptions {
  readonly seed: number;
  /** Stop after this many failovers (a new term by a different process than the previous term). */
  readonly failovers: number;
  /** Clock rates are drawn from [1 − rateSkew, 1 + rateSkew]; offsets from ±1 h. */
  readonly rateSkew: number;
  /** Max one-way message delay (ms) of healthy processes; delays uniform in [0, maxDelay]. */
  readonly maxDelay: number;
  /** Optional fixed clock rates per slot (overrides rateSkew), for negative controls. */
  readonly rates?: readonly number[];
  /** Jitter factor of acquire retries (default 1.2, client-go's). */
  readonly jitterFactor?: number;
}

export interface SimulationReport {
  readonly failovers: number;
  readonly faults: Record<FaultKind, number>;
  readonly simulatedMs: number;
  /** Two processes leading while neither is paused, at any instant. */
  readonly overlaps: readonly string[];
  /** Leader-only work ticks (every second, guarded by isLeading()) done while another led. */
  readonly unsafeActs: readonly string[];
  /** Work ticks done, and ticks refused by the isLeading() guard (e.g. stale timers after a pause). */
  readonly work: { readonly acted: number; readonly guarded: number; readonly guardedWhileOtherLeads: number };
  /** Failovers whose recovery exceeded `bound`. */
  readonly slowRecoveries: readonly string[];
  /** Periods of more than 120 s without any leader. */
  readonly stalls: number;
  readonly maxRecovery: number;
  readonly meanRecovery: number;
  /** The recovery bound checked: (leaseDuration + retryPeriod·(1 + jitterFactor)) / minRate + 14 · maxDelay. */
  readonly bound: number;
}

const L = 15_000;
const RETRY = 2_000;

/**
 * Three candidates on one in-memory lease API, in virtual time. Repeatedly: wait for a leader, let
 * it lead 3-20 s, inject one fault on it (kill, pause 5-40 s, partition 5-40 s, lose each of its
 * messages with p = 0.5 for 20 s, slow its network to 0.5-3 s one-way delays for 20 s, or stop it
 * gracefully with release), wait for the fault to end and for a leader. Killed/stopped processes
 * come back 0-30 s later as fresh processes. Every process has its own skewed clock.
 *
 * Recovery of a failover = (first instant the new leader leads) − (server time of the old leader's
 * last write as holder before that instant). Healthy processes' messages are delayed uniformly in
 * [0, maxDelay]; only the faulted process loses messages.
 */
export function simulateFailovers(options: SimulationOptions): SimulationReport {
  const JITTER = options.jitterFactor ?? 1.2;
  const random = seededRandom(options.seed);
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * random();
  const cluster = new Cluster({ seed: options.seed, leaseDurationMs: L, retryPeriodMs: RETRY, jitterFactor: JITTER });
  cluster.workTick = 1_000;
  const faulted = new Map<string, { kind: 'partition' | 'lost-renewals' | 'slow-network'; until: number }>();
  cluster.api.latency = (request) => {
    const fault = faulted.get(request.client);
    if (fault?.kind === 'slow-network' && request.at < fault.until) return { request: uniform(500, 3_000), response: uniform(500, 3_000) };
    return { request: uniform(0, options.maxDelay), response: uniform(0, options.maxDelay) };
  };
  cluster.api.fault = (request) => {
    const fault = faulted.get(request.client);
    if (fault === undefined || request.at >= fault.until) return undefined;
    if (fault.kind === 'partition') return random() < 0.5 ? { kind: 'drop-request' } : { kind: 'drop-response' };
    if (fault.kind === 'lost-renewals' && random() < 0.5) return random() < 0.5 ? { kind: 'drop-request' } : { kind: 'drop-response' };
    return undefined;
  };

  let slot = 0;
  const names = ['a', 'b', 'c'];
  const generation = new Map<string, number>();
  const spawn = (base: string) => {
    const g = (generation.get(base) ?? 0) + 1;
    generation.set(base, g);
    const fixed = options.rates?.[slot++ % (options.rates?.length ?? 1)];
    const rate = fixed ?? uniform(1 - options.rateSkew, 1 + options.rateSkew);
    cluster.start(`${base}#${g}`, { offset: uniform(-3_600_000, 3_600_000), rate }, { releaseOnCancel: true });
  };
  for (const n of names) spawn(n);

  const minRate = options.rates !== undefined ? Math.min(...options.rates) : 1 - options.rateSkew;
  const bound = (L + RETRY * (1 + JITTER)) / minRate + 14 * options.maxDelay;
  const faults = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  const recoveries: number[] = [];
  const slowRecoveries: string[] = [];
  let stalls = 0;
  let countedTerms = 0;
  let lastLeaderId: string | undefined;

  const account = () => {
    for (; countedTerms < cluster.terms.length; countedTerms++) {
      const term = cluster.terms[countedTerms];
      if (term === undefined) break;
      if (lastLeaderId !== undefined && term.id !== lastLeaderId) {
        const lastWrite = lastHolderWrite(cluster, lastLeaderId, term.start);
        const recovery = term.start - lastWrite;
        recoveries.push(recovery);
        if (recovery > bound) slowRecoveries.push(`${lastLeaderId} → ${term.id} at ${term.start}: ${recovery.toFixed(0)} ms > ${bound.toFixed(0)} ms`);
      }
      lastLeaderId = term.id;
    }
  };
  const waitForLeader = () => {
    const since = cluster.now;
    while (cluster.leaders().length === 0) {
      cluster.runUntil(cluster.now + 250);
      if (cluster.now - since > 120_000) {
        stalls++;
        return;
      }
    }
  };

  while (recoveries.length < options.failovers && stalls < 5) {
    waitForLeader();
    cluster.runUntil(cluster.now + uniform(3_000, 20_000));
    account();
    const [leader] = cluster.leaders();
    if (leader === undefined) continue;
    const kind = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)] ?? 'kill';
    faults[kind]++;
    const base = leader.split('#')[0] ?? leader;
    let faultEnds = cluster.now;
    switch (kind) {
      case 'kill':
      case 'graceful-stop': {
        if (kind === 'kill') cluster.kill(leader);
        else cluster.stop(leader);
        faultEnds = cluster.now + uniform(0, 30_000);
        cluster.at(faultEnds, () => spawn(base));
        break;
      }
      case 'pause': {
        const ms = uniform(5_000, 40_000);
        cluster.candidates.get(leader)?.process.pause(ms);
        faultEnds = cluster.now + ms;
        break;
      }
      case 'partition':
      case 'lost-renewals':
      case 'slow-network': {
        faultEnds = cluster.now + (kind === 'partition' ? uniform(5_000, 40_000) : 20_000);
        faulted.set(leader, { kind, until: faultEnds });
        break;
      }
    }
    cluster.runUntil(faultEnds + 1);
    faulted.delete(leader);
    waitForLeader();
    account();
  }
  account();
  for (const id of [...cluster.candidates.keys()]) cluster.kill(id);
  return {
    failovers: recoveries.length,
    faults,
    simulatedMs: cluster.now,
    overlaps: cluster.overlaps,
    unsafeActs: cluster.unsafeActs,
    work: cluster.work,
    slowRecoveries,
    stalls,
    maxRecovery: Math.max(0, ...recoveries),
    meanRecovery: recoveries.reduce((a, b) => a + b, 0) / Math.max(1, recoveries.length),
    bound,
  };
}

function lastHolderWrite(cluster: Cluster, id: string, before: number): number {
  const writes = cluster.api.writes;
  for (let i = writes.length - 1; i >= 0; i--) {
    const w = writes[i];
    if (w !== undefined && w.at <= before && w.client === id && w.lease.spec?.holderIdentity === id) return w.at;
  }
  return Number.NEGATIVE_INFINITY;
}
