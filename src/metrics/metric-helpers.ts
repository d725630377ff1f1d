import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { promClient } from './prom-client-module.js';

/** Returns the counter registered under `name` in `registry`, creating it on first use. */
export function counterIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<L>;
  return new (promClient().Counter<L>)({ name, help, labelNames, registers: [registry] });
}

/** Returns the gauge registered under `name` in `registry`, creating it on first use. */
export function gaugeIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
): Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Gauge<L>;
  return new (promClient().Gauge<L>)({ name, help, labelNames, registers: [registry] });
}

/** Returns the histogram registered under `name` in `registry`, creating it on first use. */
export function histogramIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: readonly number[],
): Histogram<L> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<L>;
  return new (promClient().Histogram<L>)({ name, help, labelNames, buckets: [...buckets], registers: [registry] });
}

/** `count` buckets starting at `start`, each `factor` times the previous (Prometheus' ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  let b = start;
  for (let i = 0; i < count; i++) {
    out.push(Number(b.toPrecision(12)));
    b *= factor;
  }
  return out;
}
