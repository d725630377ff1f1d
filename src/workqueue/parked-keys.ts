import type { Observable, Subscription } from 'rxjs';

/**
 * The keys a work queue's `park` option holds back: each waits for its Observable's first
 * signal (a value, completion or error), then is forgotten and `readmit` is called once.
 */
export class ParkedKeys {
  private readonly waits = new Map<string, Subscription>();

  has(key: string): boolean {
    return this.waits.has(key);
  }

  get size(): number {
    return this.waits.size;
  }

  /**
   * Parks `key` until `until$` fires, then calls `readmit`. False (nothing parked, `readmit` not
   * called) when `until$` fires while subscribing: the key need not wait.
   */
  park(key: string, until$: Observable<unknown>, readmit: () => void): boolean {
    let subscribing = true;
    let fired = false;
    const fire = (): void => {
      if (fired) return;
      fired = true;
      if (subscribing) return;
      const subscription = this.waits.get(key);
      this.waits.delete(key);
      subscription?.unsubscribe();
      readmit();
    };
    const subscription = until$.subscribe({ next: fire, error: fire, complete: fire });
    subscribing = false;
    if (fired) {
      subscription.unsubscribe();
      return false;
    }
    this.waits.set(key, subscription);
    return true;
  }

  /** Drops the parked keys `matches` selects, without re-adding them; returns them. */
  dropWhere(matches: (key: string) => boolean): string[] {
    const dropped = [...this.waits.keys()].filter(matches);
    for (const key of dropped) {
      this.waits.get(key)?.unsubscribe();
      this.waits.delete(key);
    }
    return dropped;
  }

  /** Drops every parked key without re-adding it (the queue stopped). */
  clear(): void {
    const subscriptions = [...this.waits.values()];
    this.waits.clear();
    for (const s of subscriptions) s.unsubscribe();
  }
}
