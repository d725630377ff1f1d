/** @internal One scheduled wake-up: `item` is due at `at`; `order` breaks ties (insertion order). */
export interface TimedEntry<T> {
  readonly at: number;
  readonly order: number;
  readonly item: T;
}

/** @internal A binary min-heap ordered by (`at`, `order`). */
export class TimedHeap<T> {
  private readonly heap: TimedEntry<T>[] = [];
  private counter = 0;

  get size(): number {
    return this.heap.length;
  }

  push(at: number, item: T): void {
    const h = this.heap;
    h.push({ at, order: this.counter++, item });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  peek(): TimedEntry<T> | undefined {
    return this.heap[0];
  }

  pop(): TimedEntry<T> | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l]!, h[m]!)) m = l;
      if (r < h.length && less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }
}

function less<T>(a: TimedEntry<T>, b: TimedEntry<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order);
}
