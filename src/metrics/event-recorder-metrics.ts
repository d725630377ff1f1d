import type { Registry } from 'prom-client';
import { counterIn } from './metric-helpers.js';

/** What an event recorder reports (rxkube's own family; client-go's recorder has none). */
export interface EventRecorderMetrics {
  /**
   * `count` Events of the recorder reporting as `component` were not sent because their fence
   * aborted (leadership lost): dropped unsent, or recorded after. Called with 0 when the recorder
   * is made, so the series exists from the start.
   */
  fenced(component: string, count: number): void;
}

/**
 * An {@link EventRecorderMetrics} backed by `rxkube_events_fenced_total{component}` in `registry`:
 * Events not sent because the right to write them was lost. Calling it twice on one registry
 * shares the family.
 */
export function eventRecorderMetrics(registry: Registry): EventRecorderMetrics {
  const fenced = counterIn(registry, 'rxkube_events_fenced_total',
    'Events not sent because the recorder lost the right to write them (leadership lost): dropped from its queue, or recorded after', ['component']);
  return {
    fenced(component, count) {
      fenced.inc({ component }, count);
    },
  };
}
