import { Observable, Subject } from 'rxjs';
import { requestKey, type WorkQueueAdd } from '../workqueue/request.js';

/**
 * The requests of one controller run on their way to the work queue: held while the caches sync
 * (CR-5) or while a warm standby waits for leadership, released when the workers start, and
 * passed straight through from then on.
 *
 * Held requests coalesce per key as they arrive (highest priority wins, first arrival keeps its
 * place), as they would in the queue: a fast reconcile must not finish a key before its duplicate
 * from another source's initial list arrives and runs it again, and a standby that waits for
 * hours holds at most one request per key, however many events arrive.
 */
export class RequestGate {
  private held: Map<string, WorkQueueAdd> | null = new Map();
  private readonly live = new Subject<WorkQueueAdd>();

  /** How many requests are held (one per key); 0 once open. */
  get heldCount(): number {
    return this.held?.size ?? 0;
  }

  push(add: WorkQueueAdd): void {
    if (this.held === null) {
      this.live.next(add);
      return;
    }
    const key = typeof add.request === 'string' ? add.request : requestKey(add.request);
    const seen = this.held.get(key);
    if (seen === undefined || (add.priority ?? 0) > (seen.priority ?? 0)) this.held.set(key, add);
  }

  /** The work queue's input: subscribing (once) releases the held requests and opens the gate. */
  open(): Observable<WorkQueueAdd> {
    return new Observable<WorkQueueAdd>((s) => {
      const sub = this.live.subscribe(s);
      // Requests pushed while the held ones are released are held (and coalesced) in turn.
      const pending = this.held ?? new Map<string, WorkQueueAdd>();
      while (pending.size > 0) {
        const batch = [...pending.values()];
        pending.clear();
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
