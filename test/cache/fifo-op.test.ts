import { describe, expect, it } from 'vitest';
import { type FifoInput, toFifoOp } from '../../src/cache/fifo-op.js';

describe('toFifoOp', () => {
  const object = { metadata: { name: 'a' } };
  it('maps reflector events to FIFO operations', () => {
    expect(toFifoOp({ type: 'added', object })).toEqual({ type: 'add', object });
    expect(toFifoOp({ type: 'modified', object })).toEqual({ type: 'update', object });
    expect(toFifoOp({ type: 'deleted', object })).toEqual({ type: 'delete', object });
    expect(toFifoOp({ type: 'replace', items: [object], resourceVersion: '3' })).toEqual({
      type: 'replace',
      items: [object],
      resourceVersion: '3',
    });
  });
  it('drops bookmarks and unknown inputs; passes FIFO operations through', () => {
    expect(toFifoOp({ type: 'bookmark', resourceVersion: '3' })).toBeUndefined();
    expect(toFifoOp({ type: 'nonsense' } as unknown as FifoInput)).toBeUndefined();
    const op: FifoInput = { type: 'resync' };
    expect(toFifoOp(op)).toBe(op);
  });
});
