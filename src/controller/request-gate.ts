import { Observable, Subject } from 'rxjs';
import { requestKey, type WorkQueueAdd } from '../workqueue/request.js';

/**
 * The requests of one controller run on their way to the work queue: held while the caches sync
 * (CR-5), released when the workers start — the held ones first, coalesced per key — and passed
 * straight through from then on.
 */
export class RequestGate {
  private held: WorkQueueAdd[] | null = [];
  private readonly live = new Subject<WorkQueueAdd>();

  push(add: WorkQueueAdd): void {
    if (this.held !== null) this.held.push(add);
    else this.live.next(add);
  }

  /** The work queue's input: subscribing (once) releases the held requests and opens the gate. */
  open(): Observable<WorkQueueAdd> {
    return new Observable<WorkQueueAdd>((s) => {
      const sub = this.live.subscribe(s);
      // Requests queued while the caches synced coalesce per key (highest priority wins), as
      // they would in the queue: a fast reconcile must not finish a key before its duplicate
      // from another source's initial list arrives and runs it again.
      const pending = this.held ?? [];
      while (pending.length > 0) {
        const batch = coalesce(pending.splice(0));
        for (const add of batch) s.next(add);
      }
      this.held = null;
      return sub;
    });
  }

  /** Ends the work queue's input (the run stopped). */
  close(): void {
    this.live.complete();
  }
}

function coalesce(adds: readonly WorkQueueAdd[]): WorkQueueAdd[] {
  const byKey = new Map<string, WorkQueueAdd>();
  for (const add of adds) {
    const key = typeof add.request === 'string' ? add.request : requestKey(add.request);
    const seen = byKey.get(key);
    if (seen === undefined || (add.priority ?? 0) > (seen.priority ?? 0)) byKey.set(key, add);
  }
  return [...byKey.values()];
}
