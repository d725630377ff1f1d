/**
 * `rxkube/metrics`: Prometheus collectors per layer (prom-client), beyond the manager's registry.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/metrics
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { controllerMetrics } from './controller-metrics.js';
export type { ControllerMetricsRecorder } from './controller-metrics.js';
export { workqueueMetrics } from './workqueue-metrics.js';
export type { WorkqueueMetricsProvider } from './workqueue-metrics.js';
export { reflectorMetrics } from './reflector-metrics.js';
export type { ReflectorMetricsRecorder } from './reflector-metrics.js';
// Per-informer and per-subscriber pipeline metrics (informer_*); the manager binds them to its registry.
export { informerMetrics } from './informer-metrics.js';
export type { InformerMetricsRecorder, InformerMetricsSource } from './informer-metrics.js';
// Event recorders: Events not sent because their fence aborted (rxkube_events_fenced_total).
export { eventRecorderMetrics } from './event-recorder-metrics.js';
export type { EventRecorderMetrics } from './event-recorder-metrics.js';
