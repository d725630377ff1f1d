import { describe, expect, it } from 'vitest';
import { leaderElection } from '../../src/leader-election/leader-election.js';
import { virtualLeaseWorld } from '../leader-election/helpers/virtual.js';

// LE-6 onNewLeader: called asynchronously whenever the observed holder changes (not for an empty holder).
describe('LE-6 onNewLeader', () => {
  it('reports each new observed holder once, in order, never the empty holder; leader$ mirrors it', () => {
    const w = virtualLeaseWorld();
    w.seed({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    const a = leaderElection({ lock: w.lock('a'), scheduler: w.scheduler, onNewLeader: (id) => seenByA.push(id) });
    const b = leaderElection({ lock: w.lock('b'), scheduler: w.scheduler, onNewLeader: (id) => seenByB.push(id) });
    const leaderOfB: (string | undefined)[] = [];
    const subA = a.leading$.subscribe();
    w.runUntil(1_000);
    const subB = b.leader$.subscribe((id) => leaderOfB.push(id));
    w.runUntil(30_000);
    expect(seenByA).toEqual(['a']);
    expect(seenByB).toEqual(['a']);
    subA.unsubscribe(); // killed without release: b takes over after the lease expires
    w.runUntil(60_000);
    expect(seenByB).toEqual(['a', 'b']);
    expect(leaderOfB).toEqual([undefined, 'a', 'b']);
    subB.unsubscribe();
  });

  it('is invoked asynchronously (a scheduled action after the attempt settled and leader$ emitted)', () => {
    const w = virtualLeaseWorld();
    const calls: { at: number; leaderSeen: string | undefined }[] = [];
    let leaderSeen: string | undefined;
    const a = leaderElection({
      lock: w.lock('a'),
      scheduler: w.scheduler,
      onNewLeader: () => calls.push({ at: w.scheduler.now(), leaderSeen }),
    });
    const sub = a.leader$.subscribe((id) => (leaderSeen = id));
    w.runUntil(5_000);
    expect(calls).toEqual([{ at: 0, leaderSeen: 'a' }]);
    sub.unsubscribe();
  });
});
