export * from './metric-helpers.js';
export * from './controller-metrics.js';
export * from './workqueue-metrics.js';
export * from './reflector-metrics.js';
export * from './leader-election-metrics.js';
export * from './metrics-registry.js';
export * from './record-reconcile-metrics.js';
export * from './reflector-status-metrics.js';
