import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { setupSignalHandler } from '../../src/manager/signal-handler.js';

describe('setupSignalHandler', () => {
  it('aborts on the first SIGTERM and exits on the second signal', () => {
    const proc = new EventEmitter();
    const exit = vi.fn();
    const h = setupSignalHandler({ process: proc, exit });
    expect(h.signal.aborted).toBe(false);
    proc.emit('SIGTERM');
    expect(h.signal.aborted).toBe(true);
    expect(exit).not.toHaveBeenCalled();
    proc.emit('SIGINT');
    expect(exit).toHaveBeenCalledWith(1);
    h.dispose();
    expect(proc.listenerCount('SIGTERM')).toBe(0);
    expect(proc.listenerCount('SIGINT')).toBe(0);
  });

  it('treats SIGINT like SIGTERM', () => {
    const proc = new EventEmitter();
    const h = setupSignalHandler({ process: proc, exit: () => undefined });
    proc.emit('SIGINT');
    expect(h.signal.aborted).toBe(true);
    h.dispose();
  });
});
