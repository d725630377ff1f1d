import type { Gauge, Registry } from 'prom-client';
import { counterIn, exponentialBuckets, histogramIn } from './metric-helpers.js';
import { promClient } from './prom-client-module.js';

/** What the informer gauges read from one informer at scrape time (the manager's cache monitor supplies it). */
export interface InformerMetricsSource {
  /** The informer's name: the `name` label. */
  readonly name: string;
  /** Objects in its cache. */
  objects(): number;
  /** Estimated bytes of its cache (see `approximateStoreBytes`). */
  approximateBytes(): number;
  /** Seconds since its last list, watch event or bookmark; `undefined` before the first. */
  lastEventAgeSeconds(): number | undefined;
  /** Notifications waiting per subscriber (registration name → events). */
  backlogs(): ReadonlyMap<string, number>;
  /** The resourceVersion its cache is at (of the last list, event or bookmark); `''` before the first. */
  resourceVersion(): string;
}

/** Records per-informer and per-subscriber pipeline metrics into one registry. */
export interface InformerMetricsRecorder {
  /** Adds an informer whose gauges are read at every scrape; the returned function drops its series. */
  track(source: InformerMetricsSource): () => void;
  /** The informer opened a watch again after its first one (after a watch ended, failed or a relist). */
  watchRestarted(informer: string): void;
  /** Subscriber `handler` of `informer` took `seconds` over one notification. */
  handled(informer: string, handler: string, seconds: number): void;
}

/** Buckets of `informer_processing_latency_seconds`: 1 ms doubling to about 16 s. */
export const INFORMER_PROCESSING_BUCKETS: readonly number[] = exponentialBuckets(0.001, 2, 15);

/** The Prometheus names of the informer metrics. */
export const INFORMER_METRIC_NAMES = Object.freeze({
  storeItems: 'informer_store_items',
  storeBytes: 'informer_store_approximate_bytes',
  watchRestarts: 'informer_watch_restarts_total',
  lastEventAge: 'informer_last_event_age_seconds',
  pendingNotifications: 'informer_pending_notifications',
  processingLatency: 'informer_processing_latency_seconds',
  storeResourceVersion: 'informer_store_resource_version',
});

/** A resourceVersion as a gauge value: its last 15 digits when it is a decimal number (as client-go), else undefined. */
export function resourceVersionValue(rv: string): number | undefined {
  if (!/^\d+$/.test(rv)) return undefined;
  return Number(rv.slice(-15));
}

const recorders = new WeakMap<Registry, InformerMetricsRecorder>();

/**
 * The informer metrics of `registry` (one recorder per registry, made on first use):
 * - `informer_store_items{name}`: objects in the cache (gauge, read at scrape);
 * - `informer_store_approximate_bytes{name}`: estimated JSON bytes of the cache (gauge, sampled
 *   at scrape: the mean size of up to 32 objects times the count);
 * - `informer_watch_restarts_total{name}`: watches opened after the first (counter);
 * - `informer_last_event_age_seconds{name}`: seconds since the last list, event or bookmark
 *   (gauge, at scrape; absent before the first);
 * - `informer_pending_notifications{name,handler}`: notifications waiting for each subscriber
 *   (its coalesced backlog; gauge, at scrape);
 * - `informer_processing_latency_seconds{name,handler}`: how long each subscriber took over one
 *   notification (histogram);
 * - `informer_store_resource_version{name}`: the resourceVersion the cache is at (its last 15
 *   digits, when numeric; gauge, at scrape).
 * Names follow client-go's `informer` subsystem (docs/metrics.md says which are client-go's).
 */
export function informerMetrics(registry: Registry): InformerMetricsRecorder {
  let recorder = recorders.get(registry);
  if (recorder === undefined) {
    recorder = createRecorder(registry);
    recorders.set(registry, recorder);
  }
  return recorder;
}

function createRecorder(registry: Registry): InformerMetricsRecorder {
  const sources = new Set<InformerMetricsSource>();
  const scraped = <L extends string>(name: string, help: string, labelNames: readonly L[], fill: (gauge: Gauge<L>, source: InformerMetricsSource) => void): void => {
    const Gauge = promClient().Gauge;
    const gauge: Gauge<L> = new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        gauge.reset();
        for (const source of sources) fill(gauge, source);
      },
    });
  };
  scraped(INFORMER_METRIC_NAMES.storeItems, 'Number of objects in the informer\'s cache', ['name'], (g, s) => g.set({ name: s.name }, s.objects()));
  scraped(INFORMER_METRIC_NAMES.storeBytes, 'Estimated bytes of the informer\'s cache: mean JSON size of up to 32 cached objects times their count', ['name'],
    (g, s) => g.set({ name: s.name }, s.approximateBytes()));
  scraped(INFORMER_METRIC_NAMES.lastEventAge, 'Seconds since the informer\'s last list, watch event or bookmark', ['name'], (g, s) => {
    const age = s.lastEventAgeSeconds();
    if (age !== undefined) g.set({ name: s.name }, age);
  });
  scraped(INFORMER_METRIC_NAMES.pendingNotifications, 'Notifications waiting for each subscriber of the informer (its coalesced backlog)', ['name', 'handler'], (g, s) => {
    for (const [handler, depth] of s.backlogs()) g.set({ name: s.name, handler }, depth);
  });
  scraped(INFORMER_METRIC_NAMES.storeResourceVersion, 'The resourceVersion the informer\'s cache is at (its 15 least significant digits)', ['name'], (g, s) => {
    const rv = resourceVersionValue(s.resourceVersion());
    if (rv !== undefined) g.set({ name: s.name }, rv);
  });
  const restarts = counterIn(registry, INFORMER_METRIC_NAMES.watchRestarts, 'Number of watches the informer opened after its first one', ['name']);
  const latency = histogramIn(registry, INFORMER_METRIC_NAMES.processingLatency, 'Time a subscriber of the informer took to handle one notification',
    ['name', 'handler'], INFORMER_PROCESSING_BUCKETS);
  return {
    track(source) {
      sources.add(source);
      restarts.inc({ name: source.name }, 0);
      return () => {
        sources.delete(source);
      };
    },
    watchRestarted: (informer) => restarts.inc({ name: informer }),
    handled: (informer, handler, seconds) => latency.observe({ name: informer, handler }, seconds),
  };
}
