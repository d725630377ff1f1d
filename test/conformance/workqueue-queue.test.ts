/**
 * docs/semantics.md §6.1 (basic queue), one test per rule. State rules run against `KeyQueue`, the
 * bookkeeping of `workQueue`; WQ-5 runs through the operator (its shutdown).
 */
import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { keyQueue, runQueue, takeAll } from '../workqueue/harness.js';

describe('§6.1 basic queue', () => {
  it('WQ-1 add: duplicates collapse; adds while processing are held, not queued', () => {
    const { q } = keyQueue();
    q.add('foo');
    q.add('foo');
    expect(q.len).toBe(1); // TestLen / TestCollapse
    const foo = q.get()!;
    q.add('foo');
    q.add('foo');
    expect(q.len).toBe(0); // TestCollapseWhileProcessing: not queued while processing
    expect(q.get()).toBeUndefined();
    q.done(foo);
    expect(takeAll(q)).toEqual(['foo']); // exactly one more get after done
    q.shutDown();
    q.add('bar');
    expect(q.has('bar')).toBe(false); // ignored when shutting down
  });

  it('WQ-2 get: pops the head, never hands a processed key to a second worker, still hands out after shutDown', () => {
    const { q } = keyQueue();
    q.add('a');
    q.add('b');
    const a = q.get()!;
    expect(a.key).toBe('a');
    expect(q.isProcessing('a')).toBe(true);
    q.add('a');
    expect(q.get()!.key).toBe('b');
    expect(q.get()).toBeUndefined(); // a is processing: not handed out
    q.add('c');
    q.shutDown();
    expect(q.get()!.key).toBe('c'); // queued before shutDown: still handed out
    q.done(a);
    expect(q.get()!.key).toBe('a'); // dirty item re-queued by done
    expect(q.get()).toBeUndefined();
  });

  it('WQ-3 done: removes from processing and re-queues a dirty key at the END', () => {
    const { q } = keyQueue();
    q.add('a');
    const a = q.get()!;
    q.add('a');
    q.add('b');
    q.done(a);
    expect(takeAll(q)).toEqual(['b', 'a']);
    expect(q.processing).toBe(0);
  });

  it('WQ-4 len counts queued keys only, not processed ones (even re-added)', () => {
    const { q } = keyQueue();
    q.add('a');
    q.add('b');
    expect(q.len).toBe(2);
    const a = q.get()!;
    q.add('a');
    expect(q.len).toBe(1);
    q.done(a);
    expect(q.len).toBe(2);
  });

  it('WQ-5 shutdown: waits for processing (not queued) keys; with drain a dirty key re-queued by done is handed out; idempotent', () => {
    // no drain: b was queued, never started; a finishes; then complete
    const plain = runQueue({ a: [{ ms: 10 }] }, {}, (h) => {
      h.input.next('a');
      h.input.next('b');
      h.at(2, () => h.input.complete());
    });
    expect(plain.calls).toEqual(['a@0']);
    expect(plain.completed).toBe(true);
    expect(plain.ts.now()).toBe(10);
    // drain: a re-added while processing is handed out again after done
    const drained = runQueue({ a: [{ ms: 10 }] }, { drain: true, shutdown: NEVER }, (h) => {
      h.input.next('a');
      h.at(1, () => h.input.next('a'));
      h.at(2, () => h.input.complete());
      h.at(3, () => h.input.complete()); // idempotent
    });
    expect(drained.calls).toEqual(['a@0', 'a@10']);
    expect(drained.completed).toBe(true);
    // shutDown on the queue itself is idempotent
    const { q } = keyQueue();
    q.add('x');
    q.shutDown();
    q.shutDown();
    expect(q.shuttingDown).toBe(true);
    expect(takeAll(q)).toEqual(['x']);
  });
});
