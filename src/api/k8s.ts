// `K8s.Pod`, `K8s.Deployment`, …: the built-in object types as one type-only namespace, so they
// neither clash with rxkube's own names (`Lease`, `ObjectMeta`) nor count as values of the entry.
export type * as K8s from './builtin-types.js';
