import type { Lease } from '../leader-election/lease.js';
import { parseMicroTime } from '../leader-election/lease.js';

/**
 * A shard as the sharder sees its Lease: `ready` while held by the shard and not expired;
 * `expired` once `renewTime + leaseDurationSeconds` passed (the shard stopped working by then:
 * it gives up at its renew deadline, before the lease expires); `dead` when released (no holder)
 * or held by someone else.
 */
export type ShardState = 'ready' | 'expired' | 'dead';

/** The state of a shard Lease at `nowMs` (the Lease's name is the shard's name). */
export function shardState(lease: Lease, nowMs: number): ShardState {
  const name = lease.metadata?.name ?? '';
  const spec = lease.spec ?? {};
  if (name === '' || spec.holderIdentity !== name) return 'dead';
  const renew = spec.renewTime === undefined ? Number.NaN : parseMicroTime(spec.renewTime);
  const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
  if (!Number.isFinite(renew) || duration <= 0) return 'expired';
  return nowMs < renew + duration ? 'ready' : 'expired';
}

/** The labels of the ring on one object. */
export interface ObjectAssignment {
  /** Value of the shard label; absent: unassigned. */
  readonly shard?: string | undefined;
  /** Whether the drain label is set. */
  readonly drain: boolean;
}

/** What the sharder does to one object. */
export type AssignmentAction =
  /** Nothing: assigned where it belongs, or waiting for the current shard to acknowledge a drain. */
  | { readonly type: 'none' }
  /** Set the shard label to `shard` and remove the drain label. */
  | { readonly type: 'assign'; readonly shard: string }
  /** Set the drain label: the current (live) shard must let go first. */
  | { readonly type: 'drain' };

/**
 * The sharder's decision for one object of the `for` type (the handover protocol):
 * - unassigned → assign to `desired`;
 * - on `desired` → nothing (a stale drain label is cleared by re-assigning);
 * - on a shard that is not live (expired or dead) → assign to `desired` at once: that shard has
 *   stopped, nobody else reconciles the object;
 * - on another live shard → drain, and wait: the shard acknowledges by removing both labels once
 *   no reconcile of the object runs, and only then is the object assigned to `desired`.
 *
 * With no live shard (`desired` undefined) nothing changes.
 */
export function decideAssignment(current: ObjectAssignment, desired: string | undefined, live: ReadonlySet<string>): AssignmentAction {
  if (desired === undefined) return { type: 'none' };
  if (current.shard === undefined || current.shard === '') return { type: 'assign', shard: desired };
  if (current.shard === desired) return current.drain ? { type: 'assign', shard: desired } : { type: 'none' };
  if (!live.has(current.shard)) return { type: 'assign', shard: desired };
  return current.drain ? { type: 'none' } : { type: 'drain' };
}

/**
 * The sharder's decision for an owned object: follow its controller owner's shard label, without
 * a drain of its own (the owner's drain already stopped the old shard from reconciling the
 * owner, and a shard reconciles owned objects only through their owner). An owner without a
 * shard (unassigned, or just acknowledged a drain) leaves the owned object where it is.
 */
export function decideOwnedAssignment(current: ObjectAssignment, ownerShard: string | undefined): AssignmentAction {
  if (ownerShard === undefined || ownerShard === '') return { type: 'none' };
  return current.shard === ownerShard && !current.drain ? { type: 'none' } : { type: 'assign', shard: ownerShard };
}

/** What a shard does with one request of its controller. */
export type ShardAction = 'reconcile' | 'acknowledge' | 'skip';

/**
 * A shard's decision for one object in its cache: `reconcile` it when assigned to this shard;
 * `acknowledge` a drain (remove the shard and drain labels, resourceVersion-guarded, instead of
 * reconciling); `skip` anything else (gone from the cache, or no longer this shard's: a shard
 * never reconciles an object it does not hold, which is why deletions need finalizers).
 */
export function shardAction(current: ObjectAssignment | undefined, me: string): ShardAction {
  if (current === undefined || current.shard !== me) return 'skip';
  return current.drain ? 'acknowledge' : 'reconcile';
}
