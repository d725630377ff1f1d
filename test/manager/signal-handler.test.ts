import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { setupSignalHandler } from '../../src/manager/signal-handler.js';

describe('setupSignalHandler', () => {
  it('aborts on the first SIGTERM and exits on the second signal', () => {
    const proc = new EventEmitter();
    const exit = vi.fn();
    const h = setupSignalHandler({ process: proc, exit, repeatWindowMs: 0 });
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

  it('takes a repeat within the window for a forwarded copy of the first signal, a later one for a second signal', () => {
    const proc = new EventEmitter();
    const exit = vi.fn();
    const scheduler = new VirtualTimeScheduler();
    const h = setupSignalHandler({ process: proc, exit, scheduler, repeatWindowMs: 1_000 });
    proc.emit('SIGINT');
    proc.emit('SIGINT'); // npm / tsx forwarding the same Ctrl-C
    scheduler.schedule(() => proc.emit('SIGINT'), 999);
    scheduler.flush();
    expect(h.signal.aborted).toBe(true);
    expect(exit).not.toHaveBeenCalled();
    scheduler.schedule(() => proc.emit('SIGTERM'), 1);
    scheduler.flush();
    expect(exit).toHaveBeenCalledWith(1);
    h.dispose();
  });
});
