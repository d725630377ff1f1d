/**
 * `WorkQueueOptions.drop`: an order drops the matching waiting and ready keys (a cluster left),
 * aborts the matching running reconciles with its reason and reports them `aborted` without a
 * requeue; nothing it matched is handed out afterwards, others are untouched.
 */
import { Subject, VirtualTimeScheduler, map, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { KeyQueue } from '../../src/workqueue/key-queue.js';
import type { ReconcileOutcome } from '../../src/workqueue/reconcile-result.js';
import type { Request, WorkQueueAdd } from '../../src/workqueue/request.js';
import { workQueue } from '../../src/workqueue/work-queue.js';
import type { Reconciler } from '../../src/workqueue/reconciler.js';
import type { DropRequests } from '../../src/workqueue/work-queue-options.js';

const req = (cluster: string, name: string): Request => ({ cluster, namespace: 'ns', name });

describe('workQueue drop', () => {
  it('drops queued keys of the matched requests, aborts their running reconciles, and starts none of them after', () => {
    const scheduler = new VirtualTimeScheduler();
    const input = new Subject<WorkQueueAdd>();
    const drop = new Subject<DropRequests>();
    const started: string[] = [];
    const reasons: unknown[] = [];
    const reconcile: Reconciler = (r, signal) => {
      started.push(`${r.cluster}/${r.name}@${scheduler.now()}`);
      signal.addEventListener('abort', () => reasons.push(signal.reason));
      return timer(10, scheduler).pipe(map(() => (r.name === 'periodic' ? { requeueAfter: 5 } : undefined)));
    };
    const outcomes: ReconcileOutcome[] = [];
    input.pipe(workQueue(reconcile, { scheduler, concurrency: 2, drop })).subscribe((o) => outcomes.push(o));
    input.next({ request: req('east', 'a') }); // runs 0..10
    input.next({ request: req('west', 'a') }); // runs 0..10
    input.next({ request: req('east', 'b') }); // ready, waits for a slot
    input.next({ request: req('east', 'c'), after: 50 }); // waiting
    input.next({ request: req('east', 'a') }); // re-added while running: held for after
    scheduler.schedule(() => drop.next({ matches: (r) => r.cluster === 'east', reason: 'east left' }), 5);
    scheduler.flush();
    expect(started).toEqual(['east/a@0', 'west/a@0']);
    expect(reasons).toEqual(['east left']);
    const byKey = outcomes.map((o) => `${o.key}:${o.kind}`);
    expect(byKey).toEqual(['east::ns/a:aborted', 'west::ns/a:success']);
    expect(outcomes[0]?.error).toBe('east left');
    expect(outcomes[0]?.requeueAfter).toBeUndefined();
  });

  it('a key added again after the drop (the cluster rejoined) runs, once the dropped Promise reconcile settled', async () => {
    const scheduler = new VirtualTimeScheduler();
    const input = new Subject<WorkQueueAdd>();
    const drop = new Subject<DropRequests>();
    let release: () => void = () => undefined;
    const started: string[] = [];
    let active = 0;
    let overlaps = 0;
    const reconcile: Reconciler = (r) => {
      started.push(r.cluster ?? '');
      if (active > 0) overlaps++;
      active++;
      return new Promise<void>((resolve) => {
        release = () => {
          active--;
          resolve();
        };
      });
    };
    const outcomes: ReconcileOutcome[] = [];
    input.pipe(workQueue(reconcile, { scheduler, drop })).subscribe((o) => outcomes.push(o));
    input.next({ request: req('east', 'a') });
    drop.next({ matches: (r) => r.cluster === 'east', reason: 'gone' });
    input.next({ request: req('east', 'a') }); // the new incarnation's add: kept, held until the old one settles
    expect(started).toEqual(['east']);
    release();
    await Promise.resolve();
    await Promise.resolve();
    expect(outcomes.map((o) => o.kind)).toEqual(['aborted']);
    expect(started).toEqual(['east', 'east']);
    expect(overlaps).toBe(0);
  });

  it('KeyQueue.removeWhere keeps the counts right for ready, waiting and held re-adds', () => {
    let now = 0;
    const q = new KeyQueue<string>(() => now);
    q.add('x1', 'x');
    q.add('x2', 'x', 10);
    q.add('y1', 'y');
    const item = q.get(); // x1 processing
    q.add('x1', 'x'); // held re-add
    q.add('x3', 'x');
    expect(q.depth).toBe(3);
    expect(q.removeWhere((_k, v) => v === 'x').sort()).toEqual(['x1', 'x2', 'x3']);
    expect(q.len).toBe(1);
    expect(q.depth).toBe(1);
    now = 20;
    q.promote();
    expect(q.nextReadyAt()).toBeUndefined();
    expect(q.get()?.key).toBe('y1');
    expect(q.get()).toBeUndefined();
    q.done(item as NonNullable<typeof item>);
    expect(q.get()).toBeUndefined();
    expect(q.has('x1')).toBe(false);
  });
});
