import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { reflectorMetrics, reflectorStatusMetrics } from '../../src/metrics/index.js';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('reflectorStatusMetrics', () => {
  it('turns reflector status updates into list/watch/error counters', async () => {
    const reg = new Registry();
    const obs = reflectorStatusMetrics(reflectorMetrics(reg), 'pods');
    const updates: ReflectorStatus[] = [
      { type: 'connecting' },
      { type: 'listing', resourceVersion: '0', limit: 500 },
      { type: 'error', error: new Error('x'), action: 'relist' },
      { type: 'listing', resourceVersion: '0', limit: 500 },
      { type: 'listed', resourceVersion: '42', itemCount: 7, paginated: false },
      { type: 'watching', resourceVersion: '42', timeoutSeconds: 300 },
      { type: 'error', error: new Error('y'), action: 'rewatch' },
      { type: 'backingOff', attempt: 1, delayMs: 800, next: 'rewatch' },
      { type: 'watching', resourceVersion: '42', timeoutSeconds: 300 },
    ];
    for (const u of updates) obs.next?.(u);
    const text = await reg.metrics();
    expect(sample(text, 'reflector_lists_total{name="pods"}')).toBe(1);
    expect(sample(text, 'reflector_items_per_list_total{name="pods"}')).toBe(7);
    expect(sample(text, 'reflector_watches_total{name="pods"}')).toBe(2);
    expect(sample(text, 'reflector_errors_total{name="pods",phase="list"}')).toBe(1);
    expect(sample(text, 'reflector_errors_total{name="pods",phase="watch"}')).toBe(1);
    expect(sample(text, 'reflector_last_resource_version{name="pods"}')).toBe(42);
  });

  it('reflector_backoff_seconds shows the current wait, back to 0 at the next request', async () => {
    const reg = new Registry();
    const obs = reflectorStatusMetrics(reflectorMetrics(reg), 'pods');
    const series = 'reflector_backoff_seconds{name="pods"}';
    obs.next?.({ type: 'error', error: new Error('429'), action: 'rewatch' });
    obs.next?.({ type: 'backingOff', attempt: 1, delayMs: 60_000, next: 'rewatch' });
    expect(sample(await reg.metrics(), series)).toBe(60);
    obs.next?.({ type: 'watching', resourceVersion: '42', timeoutSeconds: 300 });
    expect(sample(await reg.metrics(), series)).toBe(0);
  });
});
