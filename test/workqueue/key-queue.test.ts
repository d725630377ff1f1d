import { describe, expect, it } from 'vitest';
import { KeyQueue } from '../../src/workqueue/key-queue.js';

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function drainKeys(q: KeyQueue<unknown>): string[] {
  const out: string[] = [];
  for (let it = q.get(); it !== undefined; it = q.get()) {
    out.push(it.key);
    q.done(it);
  }
  return out;
}

describe('KeyQueue', () => {
  it('holds a key once and hands keys out in FIFO order', () => {
    const c = clock();
    const q = new KeyQueue(c.now);
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
    expect(q.len).toBe(3);
    expect(drainKeys(q)).toEqual(['a', 'b', 'c']);
    expect(q.len).toBe(0);
  });

  it('never hands out a key being processed; a re-add is held until done and goes to the end', () => {
    const q = new KeyQueue(clock().now);
    q.add('a');
    q.add('b');
    const a = q.get()!;
    q.add('a');
    q.add('a');
    expect(q.len).toBe(1);
    expect(q.depth).toBe(2);
    const b = q.get()!;
    expect(b.key).toBe('b');
    expect(q.get()).toBeUndefined();
    q.done(a);
    q.add('c');
    expect(q.len).toBe(2);
    expect(drainKeys(q)).toEqual(['a', 'c']);
    q.done(b);
    expect(q.has('a')).toBe(false);
  });

  it('keeps the earliest due time and fires due keys in due-time order', () => {
    const c = clock();
    const q = new KeyQueue(c.now);
    expect(q.add('x', undefined, 1000)).toBe(true);
    q.add('y', undefined, 500);
    q.add('z', undefined, 250);
    q.add('x', undefined, 2000); // later: ignored
    expect(q.nextReadyAt()).toBe(250);
    expect(q.len).toBe(0);
    c.advance(600);
    q.promote();
    expect(drainKeys(q)).toEqual(['z', 'y']);
    expect(q.nextReadyAt()).toBe(1000);
    q.add('x', undefined, 100); // earlier: moves it to 700
    expect(q.nextReadyAt()).toBe(700);
    c.advance(100);
    q.promote();
    expect(drainKeys(q)).toEqual(['x']);
    expect(q.nextReadyAt()).toBeUndefined();
  });

  it('orders ready keys by priority, FIFO within one; a raised priority moves a key to the end of its new FIFO', () => {
    const q = new KeyQueue(clock().now);
    q.add('low', undefined, undefined, -100);
    q.add('a', undefined, undefined, 1);
    q.add('b');
    q.add('c', undefined, undefined, 1);
    q.add('b', undefined, undefined, 1); // raised
    q.add('a', undefined, undefined, 0); // lower: keeps 1
    expect(q.priorityOf('a')).toBe(1);
    expect(q.len).toBe(4);
    expect(drainKeys(q)).toEqual(['a', 'c', 'b', 'low']);
  });

  it('drops waiting keys and ignores adds after shutDown, but still hands out ready keys', () => {
    const c = clock();
    const q = new KeyQueue(c.now);
    q.add('a');
    q.add('w', undefined, 10);
    q.shutDown();
    q.add('b');
    expect(q.nextReadyAt()).toBeUndefined();
    c.advance(20);
    q.promote();
    expect(drainKeys(q)).toEqual(['a']);
  });

  it('reports metrics: adds, depth, latency, work duration, retries', () => {
    const c = clock();
    const seen: string[] = [];
    const q = new KeyQueue(c.now, {
      adds: () => seen.push('add'),
      depth: (d) => seen.push(`depth=${d}`),
      latency: (s) => seen.push(`latency=${s}`),
      workDuration: (s) => seen.push(`work=${s}`),
      retries: () => seen.push('retry'),
    });
    q.add('a');
    c.advance(50);
    const a = q.get()!;
    q.add('a', undefined, 0);
    c.advance(20);
    q.done(a);
    expect(seen).toEqual(['add', 'depth=1', 'depth=0', 'latency=0.05', 'retry', 'add', 'depth=1', 'work=0.02']);
  });
});
