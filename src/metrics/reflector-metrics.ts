import type { Registry } from 'prom-client';
import { counterIn, gaugeIn } from './metric-helpers.js';

/** What a reflector reports about its list and watch calls; `name` identifies the reflector. */
export interface ReflectorMetricsRecorder {
  /** A list (all pages) finished with `items` objects at `resourceVersion`. */
  listed(name: string, items: number, resourceVersion?: string): void;
  /** A watch request was opened. */
  watchStarted(name: string): void;
  /** A watch ended after a very short time without events (client-go's "short watch"). */
  shortWatch(name: string): void;
  /** A list or watch failed. */
  failed(name: string, phase: 'list' | 'watch'): void;
  /**
   * The reflector waits `delayMs` (a backoff, or the server's capped `Retry-After`) before its
   * next request; 0 once it sends one again. Optional for custom recorders.
   */
  waiting?(name: string, delayMs: number): void;
}

/**
 * A {@link ReflectorMetricsRecorder} writing client-go's reflector families to `registry`:
 * `reflector_lists_total{name}`, `reflector_items_per_list_total{name}` (items seen in lists, as a
 * counter), `reflector_watches_total{name}`, `reflector_short_watches_total{name}`,
 * `reflector_errors_total{name,phase}` and `reflector_last_resource_version{name}` (numeric RVs only),
 * and rxkube's `reflector_backoff_seconds{name}`: how long the reflector is waiting before its next
 * request (0 while it is not), so a long `Retry-After` or a grown backoff shows.
 */
export function reflectorMetrics(registry: Registry): ReflectorMetricsRecorder {
  const lists = counterIn(registry, 'reflector_lists_total', 'Total number of API lists done by the reflectors', ['name']);
  const listItems = counterIn(registry, 'reflector_items_per_list_total',
    'Total number of items returned by the reflectors\' lists', ['name']);
  const watches = counterIn(registry, 'reflector_watches_total', 'Total number of API watches done by the reflectors', ['name']);
  const shortWatches = counterIn(registry, 'reflector_short_watches_total',
    'Total number of short API watches done by the reflectors', ['name']);
  const errors = counterIn(registry, 'reflector_errors_total', 'Total number of failed lists and watches', ['name', 'phase']);
  const backoff = gaugeIn(registry, 'reflector_backoff_seconds', 'Seconds the reflector waits before its next list or watch request (0 when not waiting)', ['name']);
  const lastRv = gaugeIn(registry, 'reflector_last_resource_version', 'Last resource version seen for the reflectors', ['name']);
  return {
    listed(name, items, resourceVersion) {
      lists.inc({ name });
      listItems.inc({ name }, items);
      const rv = Number(resourceVersion);
      if (resourceVersion !== undefined && resourceVersion !== '' && Number.isFinite(rv)) lastRv.set({ name }, rv);
    },
    watchStarted(name) {
      watches.inc({ name });
    },
    shortWatch(name) {
      shortWatches.inc({ name });
    },
    failed(name, phase) {
      errors.inc({ name, phase });
    },
    waiting(name, delayMs) {
      backoff.set({ name }, delayMs / 1000);
    },
  };
}
