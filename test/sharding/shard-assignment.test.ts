/**
 * Controller sharding: the hash ring, the lease states, and a virtual-time property test of
 * assignment and handover under random failures (fast-check, shrinking on failure), as the leader
 * election safety test does for leader election.
 *
 * The model: N shards each renew their shard Lease (retry period, renew deadline < lease
 * duration) and reconcile, from a lagging cache, the objects labelled with their name while they
 * believe they hold their lease; a sharder (always running, reading the API) assigns every object
 * with `decideAssignment` over the ready shards and owned objects with `decideOwnedAssignment`;
 * shards acknowledge drains with `shardAction` (resourceVersion-guarded writes). Faults: kills
 * (crash, lease kept), graceful stops (lease released) and partitions (no API access, cache
 * frozen, reconciles go on until the renew deadline), each with a restart. A shard that (re)acquires
 * its lease restarts its caches and reconciles only once they synced after that moment (as the
 * runtime does: informers per lease term) — without this rule the test finds overlaps (a healed
 * partition acting on a cache from before its objects moved).
 *
 * Safety: never two shards reconciling one object at once. Liveness (after a quiet period): every
 * object on its ring shard, no drain label left, owned objects on their owner's shard, and every
 * object reconciled by its final shard after its final assignment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/leader-election/lease.js';
import { formatMicroTime } from '../../src/leader-election/lease.js';
import { decideAssignment, decideOwnedAssignment, type ObjectAssignment, shardAction, shardState } from '../../src/sharding/shard-assignment.js';
import { HashRing, shardKey } from '../../src/sharding/shard-ring.js';

describe('HashRing', () => {
  it('is deterministic, balanced, and moves about 1/N of the keys when a shard joins', () => {
    const keys = Array.from({ length: 6000 }, (_, i) => shardKey({ apiVersion: 'v1', kind: 'ConfigMap' }, `ns-${i % 7}`, `obj-${i}`));
    const three = new HashRing(['a', 'b', 'c']);
    expect(new HashRing(['c', 'b', 'a']).shardFor(keys[0] as string)).toBe(three.shardFor(keys[0] as string));
    const counts = new Map<string, number>();
    for (const k of keys) counts.set(three.shardFor(k) ?? '', (counts.get(three.shardFor(k) ?? '') ?? 0) + 1);
    for (const s of ['a', 'b', 'c']) expect(counts.get(s) ?? 0).toBeGreaterThan(6000 / 3 * 0.8);
    const four = new HashRing(['a', 'b', 'c', 'd']);
    const moved = keys.filter((k) => three.shardFor(k) !== four.shardFor(k));
    expect(moved.every((k) => four.shardFor(k) === 'd')).toBe(true);
    expect(moved.length / keys.length).toBeGreaterThan(0.15);
    expect(moved.length / keys.length).toBeLessThan(0.35);
    expect(new HashRing([]).shardFor('x')).toBeUndefined();
  });

  it('hashes owned objects like their owner', () => {
    const owner = { apiVersion: 'apps/v1', kind: 'Deployment' };
    expect(shardKey(owner, 'ns', 'web')).toBe('apps/Deployment/ns/web');
    expect(shardKey({ apiVersion: 'v1', kind: 'ConfigMap' }, undefined, 'x')).toBe('/ConfigMap//x');
  });
});

describe('shardState and the decisions', () => {
  const lease = (name: string, holder: string | undefined, renewMs: number, seconds = 15): Lease => ({
    metadata: { name },
    spec: { ...(holder === undefined ? {} : { holderIdentity: holder }), renewTime: formatMicroTime(renewMs), leaseDurationSeconds: seconds },
  });
  it('reads lease states', () => {
    expect(shardState(lease('s1', 's1', 1_000_000), 1_010_000)).toBe('ready');
    expect(shardState(lease('s1', 's1', 1_000_000), 1_015_000)).toBe('expired');
    expect(shardState(lease('s1', undefined, 1_000_000), 1_001_000)).toBe('dead');
    expect(shardState(lease('s1', 'other', 1_000_000), 1_001_000)).toBe('dead');
  });
  it('decides assignments and shard actions', () => {
    const live = new Set(['a', 'b']);
    expect(decideAssignment({ drain: false }, 'a', live)).toEqual({ type: 'assign', shard: 'a' });
    expect(decideAssignment({ shard: 'a', drain: false }, 'a', live)).toEqual({ type: 'none' });
    expect(decideAssignment({ shard: 'a', drain: true }, 'a', live)).toEqual({ type: 'assign', shard: 'a' });
    expect(decideAssignment({ shard: 'b', drain: false }, 'a', live)).toEqual({ type: 'drain' });
    expect(decideAssignment({ shard: 'b', drain: true }, 'a', live)).toEqual({ type: 'none' });
    expect(decideAssignment({ shard: 'gone', drain: true }, 'a', live)).toEqual({ type: 'assign', shard: 'a' });
    expect(decideAssignment({ shard: 'gone', drain: false }, undefined, new Set())).toEqual({ type: 'none' });
    expect(decideOwnedAssignment({ shard: 'b', drain: false }, 'a')).toEqual({ type: 'assign', shard: 'a' });
    expect(decideOwnedAssignment({ shard: 'b', drain: false }, undefined)).toEqual({ type: 'none' });
    expect(shardAction({ shard: 'a', drain: false }, 'a')).toBe('reconcile');
    expect(shardAction({ shard: 'a', drain: true }, 'a')).toBe('acknowledge');
    expect(shardAction({ shard: 'b', drain: false }, 'a')).toBe('skip');
    expect(shardAction(undefined, 'a')).toBe('skip');
  });
});

// ---- the virtual-time model ---------------------------------------------------------------------

const TICK = 500;
const LEASE_MS = 15_000;
const RENEW_DEADLINE_MS = 10_000;
const RETRY_MS = 2_000;
const FOR = { apiVersion: 'example.com/v1', kind: 'Widget' };

type Fault = { kind: 'kill' | 'stop' | 'partition'; at: number; who: number; ticks: number };

interface ApiObject {
  readonly key: string;
  readonly owner?: string;
  labels: ObjectAssignment;
  rv: number;
  /** Label history: (time, labels, rv), for lagging caches. */
  history: Array<{ t: number; labels: ObjectAssignment; rv: number }>;
}

interface Shard {
  readonly name: string;
  up: boolean;
  partitionedUntil: number;
  lastRenewOk: number;
  nextRenew: number;
  /** Cache frozen at this time while partitioned. */
  frozenAt: number | undefined;
  /** When the current lease term began: the cache is restarted then, so it is usable once it shows that time. */
  termStart: number;
  inflight: Map<string, { start: number; end: number }>;
}

function mulberry(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Outcome {
  overlaps: string[];
  final: { misplaced: string[]; drains: string[]; ownedOff: string[]; notReconciled: string[] };
}

function simulate(opts: {
  shards: number;
  objects: number;
  faults: readonly Fault[];
  lagTicks: number;
  seed: number;
  faultTicks: number;
  quietTicks: number;
  decide?: typeof decideAssignment;
}): Outcome {
  const decide = opts.decide ?? decideAssignment;
  const rnd = mulberry(opts.seed);
  const t0 = 1_700_000_000_000;
  const shards: Shard[] = Array.from({ length: opts.shards }, (_, i) => ({
    name: `shard-${i}`, up: true, partitionedUntil: 0, lastRenewOk: -Infinity, nextRenew: t0, frozenAt: undefined, termStart: t0, inflight: new Map(),
  }));
  const leases = new Map<string, Lease>();
  const objects: ApiObject[] = [];
  for (let i = 0; i < opts.objects; i++) {
    const key = shardKey(FOR, 'ns', `w-${i}`);
    const labels = { drain: false };
    objects.push({ key, labels, rv: 1, history: [{ t: t0 - 1, labels, rv: 1 }] });
    if (i % 3 === 0) objects.push({ key: `owned-of-${i}`, owner: key, labels, rv: 1, history: [{ t: t0 - 1, labels, rv: 1 }] });
  }
  const byKey = new Map(objects.map((o) => [o.key, o]));
  const intervals = new Map<string, Array<{ shard: string; start: number; end: number }>>();
  const lastAssigned = new Map<string, number>();
  const write = (o: ApiObject, labels: ObjectAssignment, now: number) => {
    o.labels = labels;
    o.rv++;
    o.history.push({ t: now, labels, rv: o.rv });
    lastAssigned.set(o.key, now);
  };
  const cached = (s: Shard, o: ApiObject, now: number) => {
    const at = (s.frozenAt ?? now) - opts.lagTicks * TICK;
    let seen = o.history[0] as ApiObject['history'][number];
    for (const h of o.history) if (h.t <= at) seen = h;
    return seen;
  };
  const holding = (s: Shard, now: number) => s.up && now < s.lastRenewOk + RENEW_DEADLINE_MS;
  const endAll = (s: Shard, now: number) => {
    for (const [key, r] of s.inflight) intervals.get(key)?.push({ shard: s.name, start: r.start, end: Math.min(r.end, now) });
    s.inflight.clear();
  };
  const total = opts.faultTicks + opts.quietTicks;
  const restarts: Array<{ at: number; who: number }> = [];
  for (let tick = 0; tick < total; tick++) {
    const now = t0 + tick * TICK;
    // Faults (only in the fault window) and restarts.
    for (const f of opts.faults) {
      if (f.at !== tick || tick >= opts.faultTicks) continue;
      const s = shards[f.who % shards.length] as Shard;
      if (!s.up) continue;
      if (f.kind === 'partition') {
        s.partitionedUntil = now + f.ticks * TICK;
        s.frozenAt = now;
      } else {
        endAll(s, now);
        s.up = false;
        s.lastRenewOk = -Infinity;
        if (f.kind === 'stop' && s.partitionedUntil <= now) leases.set(s.name, { metadata: { name: s.name }, spec: { leaseDurationSeconds: LEASE_MS / 1000 } });
        restarts.push({ at: tick + f.ticks, who: f.who % shards.length });
      }
    }
    for (const r of restarts) {
      const s = shards[r.who] as Shard;
      if (r.at === tick && !s.up) {
        s.up = true;
        s.frozenAt = undefined;
        s.partitionedUntil = 0;
        s.nextRenew = now;
      }
    }
    // Shards: renew leases (acquire a free, expired or own lease), end or abort reconciles, act.
    for (const s of shards) {
      if (!s.up) continue;
      const partitioned = now < s.partitionedUntil;
      if (!partitioned && s.frozenAt !== undefined) s.frozenAt = undefined;
      if (!partitioned && now >= s.nextRenew) {
        const l = leases.get(s.name);
        const state = l === undefined ? 'dead' : shardState(l, now);
        if (l === undefined || state !== 'ready' || l.spec?.holderIdentity === s.name) {
          if (!holding(s, now)) s.termStart = now; // a new term: caches start afresh (a new list)
          leases.set(s.name, { metadata: { name: s.name }, spec: { holderIdentity: s.name, renewTime: formatMicroTime(now), leaseDurationSeconds: LEASE_MS / 1000 } });
          s.lastRenewOk = now;
        }
        s.nextRenew = now + RETRY_MS;
      }
      for (const [key, r] of [...s.inflight]) {
        if (r.end <= now || !holding(s, now)) {
          intervals.get(key)?.push({ shard: s.name, start: r.start, end: Math.min(r.end, now) });
          s.inflight.delete(key);
        }
      }
      if (!holding(s, now)) continue;
      // Reconcile only from a cache synced in this term (listed after the lease was (re)acquired).
      if ((s.frozenAt ?? now) - opts.lagTicks * TICK < s.termStart) continue;
      for (const o of objects) {
        if (o.owner !== undefined || s.inflight.has(o.key)) continue;
        const seen = cached(s, o, now);
        const action = shardAction(seen.labels, s.name);
        if (action === 'acknowledge') {
          if (!partitioned && o.rv === seen.rv) write(o, { drain: false }, now);
        } else if (action === 'reconcile' && rnd() < 0.3) {
          if (!intervals.has(o.key)) intervals.set(o.key, []);
          s.inflight.set(o.key, { start: now, end: now + TICK * (1 + Math.floor(rnd() * 4)) });
        }
      }
    }
    // The sharder: ready shards from the Leases, then every object.
    if (rnd() < 0.7) {
      const live = new Set([...leases.values()].filter((l) => shardState(l, now) === 'ready').map((l) => l.metadata?.name ?? ''));
      const ring = new HashRing(live);
      for (const o of objects) {
        const action =
          o.owner === undefined
            ? decide(o.labels, ring.shardFor(o.key), live)
            : decideOwnedAssignment(o.labels, (byKey.get(o.owner) as ApiObject).labels.shard);
        if (action.type === 'assign') write(o, { shard: action.shard, drain: false }, now);
        else if (action.type === 'drain') write(o, { ...o.labels, drain: true }, now);
      }
    }
  }
  const end = t0 + total * TICK;
  for (const s of shards) endAll(s, end);
  const overlaps: string[] = [];
  for (const [key, list] of intervals) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++)
      for (let j = i + 1; j < sorted.length; j++) {
        const a = sorted[i] as { shard: string; start: number; end: number };
        const b = sorted[j] as { shard: string; start: number; end: number };
        if (b.start >= a.end) break;
        if (a.shard !== b.shard) overlaps.push(`${key}: ${a.shard} [${a.start - t0}, ${a.end - t0}) and ${b.shard} [${b.start - t0}, ${b.end - t0})`);
      }
  }
  const ring = new HashRing(shards.map((s) => s.name));
  const mains = objects.filter((o) => o.owner === undefined);
  return {
    overlaps,
    final: {
      misplaced: mains.filter((o) => o.labels.shard !== ring.shardFor(o.key)).map((o) => o.key),
      drains: objects.filter((o) => o.labels.drain).map((o) => o.key),
      ownedOff: objects.filter((o) => o.owner !== undefined && o.labels.shard !== (byKey.get(o.owner) as ApiObject).labels.shard).map((o) => o.key),
      notReconciled: mains
        .filter((o) => !(intervals.get(o.key) ?? []).some((r) => r.shard === o.labels.shard && r.start >= (lastAssigned.get(o.key) ?? 0)))
        .map((o) => o.key),
    },
  };
}

describe('sharding: assignment and handover under random failures (virtual time, fast-check)', () => {
  const FAULT_TICKS = 240; // 2 minutes of faults
  const QUIET_TICKS = 120; // then 1 minute without: every shard back
  const fault: fc.Arbitrary<Fault> = fc.record({
    kind: fc.constantFrom('kill' as const, 'stop' as const, 'partition' as const),
    at: fc.integer({ min: 0, max: FAULT_TICKS - 1 }),
    who: fc.integer({ min: 0, max: 3 }),
    ticks: fc.integer({ min: 1, max: 80 }),
  });
  it('never two shards reconcile one object at once; after the faults every object is on its ring shard', () => {
    let runs = 0;
    fc.assert(
      fc.property(
        fc.record({
          shards: fc.integer({ min: 1, max: 4 }),
          faults: fc.array(fault, { maxLength: 10 }),
          lagTicks: fc.integer({ min: 0, max: 4 }),
          seed: fc.integer({ min: 1, max: 1_000_000 }),
        }),
        ({ shards, faults, lagTicks, seed }) => {
          runs++;
          const out = simulate({ shards, objects: 24, faults, lagTicks, seed, faultTicks: FAULT_TICKS, quietTicks: QUIET_TICKS });
          expect(out.overlaps).toEqual([]);
          expect(out.final).toEqual({ misplaced: [], drains: [], ownedOff: [], notReconciled: [] });
        },
      ),
      { numRuns: 150 },
    );
    expect(runs).toBeGreaterThanOrEqual(150);
  });

  it('has teeth: the same model with the drain step skipped finds concurrent reconciles', () => {
    const unguarded: typeof decideAssignment = (current, desired) =>
      desired === undefined || (current.shard === desired && !current.drain) ? { type: 'none' } : { type: 'assign', shard: desired };
    let found = 0;
    for (let seed = 1; seed <= 30; seed++) {
      // Shard 1 starts late (a "kill" at 0), so objects move from the live shard 0 when it joins.
      const out = simulate({ shards: 2, objects: 24, faults: [{ kind: 'kill', at: 0, who: 1, ticks: 40 }], lagTicks: 2, seed, faultTicks: 100, quietTicks: 60, decide: unguarded });
      found += out.overlaps.length;
    }
    expect(found).toBeGreaterThan(0);
  });
});
