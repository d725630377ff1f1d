import type { Registry } from 'prom-client';
import { dependencyKey } from '../api/runnable.js';

/**
 * The manager's Prometheus registry (the one `/metrics` serves), for `Runnable.inject`
 * (`deps.get(METRICS_REGISTRY_KEY)`).
 */
export const METRICS_REGISTRY_KEY = dependencyKey<Registry>('rxkube.metrics-registry');
