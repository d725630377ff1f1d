import type { WorkQueueMetrics } from './metrics.js';
import { ReadyFifo } from './ready-fifo.js';
import { TimedHeap } from './timed-heap.js';

const IDLE = 0;
const WAITING = 1;
const READY = 2;

/** A key held by a {@link KeyQueue}, as handed out by `get`. */
export interface QueueItem<V> {
  readonly key: string;
  /** The value stored with the key when it was first added (undefined if none was given). */
  readonly value: V | undefined;
  /** The priority it was handed out with. */
  readonly priority: number;
  /** `now()` when it was handed out. */
  readonly startedAt: number;
}

class Entry<V> implements QueueItem<V> {
  state = IDLE;
  processing = false;
  readyAt = 0;
  priority = 0;
  stamp = 0;
  inFifo = false;
  addedAt = 0;
  startedAt = 0;
  constructor(
    readonly key: string,
    public value: V | undefined,
  ) {}
}

/**
 * The work queue's bookkeeping, without timers or workers: client-go's queue + delaying queue
 * semantics in the shape of controller-runtime's priority queue (WQ-1…5, DQ-1/2, PQ-1).
 *
 * - Each key is held at most once. A key is idle, waiting (due at a future time) or ready; being
 *   processed is a separate flag, so a key re-added while processed is held until `done`.
 * - Re-adding keeps the earliest due time and the highest priority; a ready key stays ready.
 * - `get` hands out ready keys by priority (high first), first-in first-out within a priority,
 *   and never a key that is being processed.
 * - Due times are driven from outside: call `promote()` when `nextReadyAt()` has passed.
 *
 * Cost: adding a key already queued allocates nothing; ready keys sit in per-priority FIFOs
 * (arrays with a moving head, lazy deletion), waiting keys in one binary heap.
 */
export class KeyQueue<V = undefined> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly fifos = new Map<number, ReadyFifo<Entry<V>>>();
  /** Priorities that have a FIFO, highest first. */
  private priorities: number[] = [];
  private readonly waiting = new TimedHeap<Entry<V>>();
  private readyCount = 0;
  private dueCount = 0;
  private processingCount = 0;
  private stopped = false;

  constructor(
    private readonly now: () => number,
    private readonly metrics: WorkQueueMetrics = {},
  ) {}

  /** Keys ready to be handed out (WQ-4: excludes processed keys, even re-added ones). */
  get len(): number {
    return this.readyCount;
  }

  /** Keys that are due: ready ones plus re-added keys held until their processing is done. */
  get depth(): number {
    return this.dueCount;
  }

  /** Keys currently handed out and not yet `done`. */
  get processing(): number {
    return this.processingCount;
  }

  get shuttingDown(): boolean {
    return this.stopped;
  }

  /** True while `key` is handed out and not yet `done`. */
  isProcessing(key: string): boolean {
    return this.entries.get(key)?.processing === true;
  }

  /** True when the queue holds `key` in any way: waiting, ready, or being processed. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** True when `key` is waiting, ready, or held for after its processing. */
  isQueued(key: string): boolean {
    const e = this.entries.get(key);
    return e !== undefined && e.state !== IDLE;
  }

  /** The key's current priority, if the queue knows the key. */
  priorityOf(key: string): number | undefined {
    return this.entries.get(key)?.priority;
  }

  /**
   * Adds `key`. Ignored after `shutDown`. `after` makes it an `addAfter` (DQ-1): counts a retry,
   * and when > 0 the key is due `after` ms from now (earliest due time wins, DQ-2). `priority`
   * defaults to 0 for a new key; for a known key the higher priority wins.
   * @returns true when the earliest due time (`nextReadyAt`) may have changed.
   */
  add(key: string, value?: V, after?: number, priority?: number): boolean {
    if (this.stopped) return false;
    if (after !== undefined) this.metrics.retries?.();
    let e = this.entries.get(key);
    if (e === undefined) {
      e = new Entry(key, value);
      this.entries.set(key, e);
    }
    const delayed = after !== undefined && after > 0;
    if (e.state === IDLE) {
      e.priority = priority ?? 0;
      if (delayed) {
        this.wait(e, this.now() + after);
        return true;
      }
      this.makeReady(e);
      return false;
    }
    const raised = priority !== undefined && priority > e.priority;
    if (raised) e.priority = priority;
    if (e.state === READY) {
      // PQ-1: an item that is already ready stays ready; a raised priority moves it to the end
      // of the new priority's FIFO.
      if (raised && !e.processing) this.pushReady(e);
      return false;
    }
    // WAITING
    if (!delayed) {
      this.makeReady(e);
      return true;
    }
    const at = this.now() + after;
    if (at < e.readyAt) {
      this.wait(e, at);
      return true;
    }
    return false;
  }

  /** Hands out the next ready key (WQ-2), or undefined when none is ready. */
  get(): QueueItem<V> | undefined {
    if (this.readyCount === 0) return undefined;
    for (const p of this.priorities) {
      const fifo = this.fifos.get(p)!;
      while (fifo.size > 0) {
        const e = fifo.peekItem()!;
        const stamp = fifo.peekStamp();
        fifo.shift();
        if (!e.inFifo || e.stamp !== stamp) continue;
        e.inFifo = false;
        const now = this.now();
        e.state = IDLE;
        e.processing = true;
        e.startedAt = now;
        this.readyCount--;
        this.dueCount--;
        this.processingCount++;
        this.metrics.depth?.(this.dueCount);
        this.metrics.latency?.((now - e.addedAt) / 1000);
        return e;
      }
    }
    return undefined;
  }

  /** Marks `item` finished (WQ-3): if it was re-added meanwhile it is queued again (at the end). */
  done(item: QueueItem<V>): void {
    const e = this.entries.get(item.key);
    if (e === undefined || !e.processing) return;
    e.processing = false;
    this.processingCount--;
    this.metrics.workDuration?.((this.now() - e.startedAt) / 1000);
    if (e.state === READY) this.pushReady(e);
    else if (e.state === IDLE) this.entries.delete(e.key);
  }

  /** Makes every waiting key whose due time has passed ready, earliest first (DQ-2). */
  promote(): void {
    const now = this.now();
    for (;;) {
      const top = this.waiting.peek();
      if (top === undefined || top.at > now) break;
      this.waiting.pop();
      const e = top.item;
      if (e.state === WAITING && e.readyAt === top.at && this.entries.get(e.key) === e) this.makeReady(e);
    }
  }

  /** The earliest due time of a waiting key, if any. */
  nextReadyAt(): number | undefined {
    for (;;) {
      const top = this.waiting.peek();
      if (top === undefined) return undefined;
      const e = top.item;
      if (e.state === WAITING && e.readyAt === top.at && this.entries.get(e.key) === e) return top.at;
      this.waiting.pop();
    }
  }

  /**
   * Drops every waiting or ready key for which `matches(key, value)` is true (a key being processed
   * keeps running, but a re-add of it waiting for `done` is dropped). Returns the dropped keys.
   */
  removeWhere(matches: (key: string, value: V | undefined) => boolean): string[] {
    const removed: string[] = [];
    for (const e of [...this.entries.values()]) {
      if (e.state === IDLE || !matches(e.key, e.value)) continue;
      if (e.state === READY) {
        this.dueCount--;
        if (e.inFifo) {
          e.inFifo = false; // the FIFO skips it (lazy deletion)
          this.readyCount--;
        }
      }
      e.state = IDLE; // a WAITING entry left in the heap is skipped by `promote`
      if (!e.processing) this.entries.delete(e.key);
      removed.push(e.key);
    }
    if (removed.length > 0) this.metrics.depth?.(this.dueCount);
    return removed;
  }

  /**
   * Stops accepting adds and drops waiting keys (DQ-2). Ready keys can still be taken with `get`
   * (WQ-2); keys being processed finish with `done`. Idempotent.
   */
  shutDown(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.waiting.clear();
    for (const e of this.entries.values()) {
      if (e.state === WAITING) {
        e.state = IDLE;
        if (!e.processing) this.entries.delete(e.key);
      }
    }
  }

  private wait(e: Entry<V>, at: number): void {
    e.state = WAITING;
    e.readyAt = at;
    this.waiting.push(at, e);
  }

  private makeReady(e: Entry<V>): void {
    e.state = READY;
    e.addedAt = this.now();
    this.dueCount++;
    this.metrics.adds?.();
    this.metrics.depth?.(this.dueCount);
    if (!e.processing) this.pushReady(e);
  }

  private pushReady(e: Entry<V>): void {
    let fifo = this.fifos.get(e.priority);
    if (fifo === undefined) {
      fifo = new ReadyFifo<Entry<V>>();
      this.fifos.set(e.priority, fifo);
      this.priorities = [...this.fifos.keys()].sort((a, b) => b - a);
    }
    if (!e.inFifo) {
      e.inFifo = true;
      this.readyCount++;
    }
    e.stamp++;
    fifo.push(e, e.stamp);
  }
}
