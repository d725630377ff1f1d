/**
 * @internal A FIFO of (entry, stamp) pairs in two parallel arrays with a moving head, so pushing
 * and shifting allocate nothing per element (the arrays grow and are compacted in place). Entries
 * whose stamp no longer matches are skipped by the owner (lazy deletion).
 */
export class ReadyFifo<T> {
  private items: (T | undefined)[] = [];
  private stamps: number[] = [];
  private head = 0;

  /** Number of slots from head to tail (including stale ones). */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T, stamp: number): void {
    this.items.push(item);
    this.stamps.push(stamp);
  }

  /** The head's item, or undefined when empty. */
  peekItem(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** The head's stamp (only meaningful when `size > 0`). */
  peekStamp(): number {
    return this.stamps[this.head] ?? -1;
  }

  /** Drops the head. */
  shift(): void {
    this.items[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.stamps.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items.copyWithin(0, this.head);
      this.stamps.copyWithin(0, this.head);
      this.items.length -= this.head;
      this.stamps.length -= this.head;
      this.head = 0;
    }
  }

  clear(): void {
    this.items = [];
    this.stamps = [];
    this.head = 0;
  }
}
