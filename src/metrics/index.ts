export {
  counterIn,
  exponentialBuckets,
  gaugeIn,
  histogramIn,
} from './metric-helpers.js';
export {
  RECONCILE_TIME_BUCKETS,
  controllerMetrics,
} from './controller-metrics.js';
export type {
  ControllerMetricsRecorder,
  ReconcileResultLabel,
} from './controller-metrics.js';
export {
  WORKQUEUE_LATENCY_BUCKETS,
  workqueueMetrics,
} from './workqueue-metrics.js';
export type {
  WorkqueueMetricsHooks,
  WorkqueueMetricsProvider,
} from './workqueue-metrics.js';
export {
  reflectorMetrics,
} from './reflector-metrics.js';
export type {
  ReflectorMetricsRecorder,
} from './reflector-metrics.js';
export {
  leaderStatusMetric,
  trackLeaderStatus,
} from './leader-election-metrics.js';
export {
  managerMetrics,
} from './metrics-registry.js';
export type {
  ManagerMetrics,
} from './metrics-registry.js';
export {
  recordReconcileMetrics,
} from './record-reconcile-metrics.js';
export {
  reflectorStatusMetrics,
} from './reflector-status-metrics.js';
export {
  REST_CLIENT_LATENCY_BUCKETS,
  restClientMetrics,
} from './rest-client-metrics.js';
export {
  processMetrics,
} from './process-metrics.js';
export {
  METRICS_REGISTRY_KEY,
} from './registry-key.js';
