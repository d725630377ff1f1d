/**
 * Issue 26, deliverable 6: with `reconcileTimeoutMs`, a Promise reconcile that never settles gives
 * its worker slot back when it times out (other keys go on), while its key stays held until the
 * promise settles (never two reconciles of one key at once). In virtual time.
 */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import type { WorkQueueInput } from '../../src/workqueue/request.js';
import { workQueue } from '../../src/workqueue/work-queue.js';
import { virtualTime } from '../manager/virtual-time.js';

describe('reconcile timeout and the worker slot', () => {
  it('frees the slot of a timed-out Promise reconcile but keeps its key held until it settles', async () => {
    const vt = virtualTime();
    const input = new Subject<WorkQueueInput>();
    const outcomes: ReconcileOutcome[] = [];
    let release: (() => void) | undefined;
    input
      .pipe(
        workQueue(
          (req) => {
            vt.record(`start ${req.name}`);
            if (req.name === 'stuck' && release === undefined) {
              // Ignores its signal; settles only when the test says so.
              return new Promise<void>((resolve) => (release = resolve));
            }
            return undefined;
          },
          { concurrency: 1, reconcileTimeoutMs: 100, scheduler: vt.scheduler },
        ),
      )
      .subscribe((o) => {
        outcomes.push(o);
        vt.record(`${o.kind} ${o.key}${o.timedOut ? ' (timed out)' : ''}`);
      });
    input.next('stuck');
    await vt.advance(10);
    input.next('other');
    input.next('stuck'); // re-added while running: must wait until the first run settles
    await vt.advance(200);
    expect(vt.log).toEqual(['0 start stuck', '100 start other', '100 success other']);
    release?.();
    await vt.advance(10);
    expect(vt.log).toEqual([
      '0 start stuck',
      '100 start other',
      '100 success other',
      '210 error stuck (timed out)',
      '210 start stuck',
      '210 success stuck',
    ]);
  });

  it('lets go of at most `concurrency` timed-out reconciles at a time', async () => {
    const vt = virtualTime();
    const input = new Subject<WorkQueueInput>();
    input
      .pipe(
        workQueue(
          (req) => {
            vt.record(`start ${req.name}`);
            return new Promise<void>(() => undefined); // never settles
          },
          { concurrency: 1, reconcileTimeoutMs: 100, scheduler: vt.scheduler },
        ),
      )
      .subscribe();
    for (const k of ['a', 'b', 'c']) input.next(k);
    await vt.advance(1_000);
    // a is let go at 100, b takes the slot and keeps it after timing out: c never starts.
    expect(vt.log).toEqual(['0 start a', '100 start b']);
  });
});
