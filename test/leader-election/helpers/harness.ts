import { interval, type Subscription, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { type LeaderElectionConfig } from '../../../src/leader-election/index.js';
import { type LeaderElection, leaderElection } from '../../../src/leader-election/leader-election.js';
import { LeaseLock } from '../../../src/leader-election/lease-lock.js';
import { type LeaseRef } from '../../../src/leader-election/lease-api.js';
import { InMemoryLeaseApi } from '../../../src/testing/in-memory-lease-api.js';
import { ProcessScheduler, processLeaseApi } from './process-scheduler.js';

/** A seeded PRNG (mulberry32) returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One leadership term of a candidate, in base (global) time; `end` undefined while ongoing. */
export interface Term {
  readonly id: string;
  readonly start: number;
  end: number | undefined;
}

/** A candidate process: its scheduler, election and subscription. */
export interface Candidate {
  readonly id: string;
  readonly process: ProcessScheduler;
  readonly election: LeaderElection;
  subscription: Subscription | undefined;
}

export const LEASE_REF: LeaseRef = { namespace: 'kube-system', name: 'rxkube-test' };

/**
 * A cluster of candidates sharing one in-memory lease API on one virtual-time scheduler. Records
 * every leadership term (from `leading$`) and flags any instant at which two candidates lead while
 * neither is paused (`overlaps`).
 */
export class Cluster {
  readonly scheduler = new VirtualTimeScheduler(VirtualAction, Number.POSITIVE_INFINITY);
  readonly api: InMemoryLeaseApi;
  readonly candidates = new Map<string, Candidate>();
  readonly terms: Term[] = [];
  readonly overlaps: string[] = [];
  /** Work ticks done while `isLeading()` held (acted) and ticks it refused (guarded). */
  readonly work = { acted: 0, guarded: 0, guardedWhileOtherLeads: 0 };
  /** Work ticks that acted while another candidate led unpaused. */
  readonly unsafeActs: string[] = [];
  /** When > 0, every candidate runs `whileLeading(interval(workTick))` and checks `isLeading()` before each act. */
  workTick = 0;
  private readonly open = new Map<string, Term>();
  private generation = 0;

  constructor(
    private readonly options: Partial<Omit<LeaderElectionConfig, 'lock' | 'scheduler'>> & { seed?: number } = {},
  ) {
    this.api = new InMemoryLeaseApi({ scheduler: this.scheduler });
  }

  get now(): number {
    return this.scheduler.now();
  }

  /** Starts a candidate `id` (a fresh process each time), with an optional clock skew. */
  start(id: string, skew: { offset?: number; rate?: number } = {}, overrides: Partial<LeaderElectionConfig> = {}): Candidate {
    const process = new ProcessScheduler(this.scheduler, skew.offset ?? 0, skew.rate ?? 1);
    const lock = new LeaseLock(processLeaseApi(this.api.client(id), process), LEASE_REF, id);
    const { seed, ...rest } = this.options;
    const election = leaderElection({
      ...rest,
      random: seededRandom((seed ?? 1) * 7919 + this.generation++),
      ...overrides,
      lock,
      scheduler: process,
    });
    const candidate: Candidate = { id, process, election, subscription: undefined };
    candidate.subscription = election.leading$.subscribe((leading) => this.onLeading(candidate, leading));
    if (this.workTick > 0) {
      candidate.subscription.add(election.whileLeading(() => interval(this.workTick, process)).subscribe(() => this.act(candidate)));
    }
    this.candidates.set(id, candidate);
    return candidate;
  }

  /** Kills the process: nothing of it runs again, no release. */
  kill(id: string): void {
    const candidate = this.candidates.get(id);
    if (candidate === undefined) return;
    candidate.process.kill();
    candidate.subscription?.unsubscribe();
    this.closeTerm(id);
    this.candidates.delete(id);
  }

  /** Stops a candidate gracefully (unsubscribes; releases when configured). */
  stop(id: string): void {
    const candidate = this.candidates.get(id);
    if (candidate === undefined) return;
    candidate.subscription?.unsubscribe();
    this.closeTerm(id);
    this.candidates.delete(id);
  }

  /** Runs virtual time up to `t` (absolute base ms). */
  runUntil(t: number): void {
    this.scheduler.maxFrames = t;
    this.scheduler.flush();
    this.scheduler.frame = Math.max(this.scheduler.frame, t);
  }

  /** Schedules `fn` at absolute base time `t`. */
  at(t: number, fn: () => void): void {
    this.scheduler.schedule(fn, Math.max(0, t - this.now));
  }

  /** Ids currently leading (by `leading$`). */
  leaders(): string[] {
    return [...this.open.keys()];
  }

  /** Base time of the last write the server applied for `id` (its last successful acquire/renew). */
  lastWriteBy(id: string): number | undefined {
    const writes = this.api.writes;
    for (let i = writes.length - 1; i >= 0; i--) {
      const w = writes[i];
      if (w !== undefined && w.client === id && w.lease.spec?.holderIdentity === id) return w.at;
    }
    return undefined;
  }

  /** A unit of leader-only work: acts only if the clock-checked `isLeading()` holds. */
  private act(candidate: Candidate): void {
    const othersLeading = [...this.open.keys()].filter((other) => {
      const otherProcess = this.candidates.get(other)?.process;
      return other !== candidate.id && otherProcess !== undefined && !otherProcess.paused;
    });
    if (!candidate.election.isLeading()) {
      this.work.guarded++;
      if (othersLeading.length > 0) this.work.guardedWhileOtherLeads++;
      return;
    }
    this.work.acted++;
    for (const other of othersLeading) this.unsafeActs.push(`${candidate.id} acted at ${this.now} while ${other} leads`);
  }

  private onLeading(candidate: Candidate, leading: boolean): void {
    if (!leading) {
      this.closeTerm(candidate.id);
      return;
    }
    if (this.open.has(candidate.id)) return;
    for (const [other] of this.open) {
      const otherProcess = this.candidates.get(other)?.process;
      if (otherProcess !== undefined && !otherProcess.paused) {
        this.overlaps.push(`${candidate.id} started leading at ${this.now} while ${other} leads`);
      } else if (otherProcess !== undefined) {
        // The other leader is frozen; it must drop leadership the instant it resumes.
        const resumesAt = otherProcess.resumesAt;
        this.at(resumesAt + 0.5, () => {
          if (this.open.has(other) && this.open.has(candidate.id) && !otherProcess.paused) {
            this.overlaps.push(`${other} still leads ${resumesAt + 0.5 - resumesAt}ms after resuming while ${candidate.id} leads`);
          }
        });
      }
    }
    const term: Term = { id: candidate.id, start: this.now, end: undefined };
    this.open.set(candidate.id, term);
    this.terms.push(term);
  }

  private closeTerm(id: string): void {
    const term = this.open.get(id);
    if (term === undefined) return;
    term.end = this.now;
    this.open.delete(id);
  }
}
