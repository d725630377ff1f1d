/**
 * The TypeScript types of the built-in resources, from the `kubernetes-types` package: the JSON
 * wire shapes (timestamps are RFC 3339 strings, quantities strings), as rxkube caches them. The
 * root entry re-exports them as the type namespace `K8s` (`K8s.Pod`, `K8s.Deployment`, …).
 */
export type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
export type { CustomResourceDefinition, JSONSchemaProps } from 'kubernetes-types/apiextensions/v1.js';
export type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
export type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
export type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
export type { Lease } from 'kubernetes-types/coordination/v1.js';
export type {
  ConfigMap,
  Container,
  Endpoints,
  Event,
  LimitRange,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodSpec,
  PodTemplateSpec,
  ReplicationController,
  ResourceQuota,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-types/core/v1.js';
export type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
export type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
export type { LabelSelector, ObjectMeta, OwnerReference, Time } from 'kubernetes-types/meta/v1.js';
export type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
export type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
export type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
export type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
export type { StorageClass } from 'kubernetes-types/storage/v1.js';
