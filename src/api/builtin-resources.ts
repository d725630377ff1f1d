import type * as K8s from './builtin-types.js';
import type { KubeObject } from './kube-object.js';
import type { ResolvedResourceType } from './resource.js';

/** A frozen descriptor; `apiVersion` and `kind` must be the ones the object type declares. */
function resource<T extends KubeObject>(
  apiVersion: NonNullable<T['apiVersion']>,
  kind: NonNullable<T['kind']>,
  plural: string,
  namespaced: boolean,
): ResolvedResourceType<T> {
  return Object.freeze({ apiVersion, kind, plural, namespaced });
}

/**
 * Typed descriptors of the built-in resources (the versions a current cluster serves), each
 * carrying its object type from `kubernetes-types`: `informers.for(resources.pods)` is a
 * `SharedInformer<K8s.Pod>`, `client.objects(resources.deployments, 'ns')` an
 * `ObjectClient<K8s.Deployment>`. Complete (plural and scope given), so no discovery request is
 * made for them. One frozen object rather than one export each, to keep the root entry small.
 *
 * ```ts
 * import { resources } from 'rxkube';
 * const { pods, configMaps } = resources;
 * ```
 */
export const resources = Object.freeze({
  // core/v1
  pods: resource<K8s.Pod>('v1', 'Pod', 'pods', true),
  configMaps: resource<K8s.ConfigMap>('v1', 'ConfigMap', 'configmaps', true),
  secrets: resource<K8s.Secret>('v1', 'Secret', 'secrets', true),
  services: resource<K8s.Service>('v1', 'Service', 'services', true),
  serviceAccounts: resource<K8s.ServiceAccount>('v1', 'ServiceAccount', 'serviceaccounts', true),
  endpoints: resource<K8s.Endpoints>('v1', 'Endpoints', 'endpoints', true),
  /** core/v1 Events (what `kubectl get events` lists and the event recorder writes). */
  events: resource<K8s.Event>('v1', 'Event', 'events', true),
  persistentVolumeClaims: resource<K8s.PersistentVolumeClaim>('v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true),
  replicationControllers: resource<K8s.ReplicationController>('v1', 'ReplicationController', 'replicationcontrollers', true),
  resourceQuotas: resource<K8s.ResourceQuota>('v1', 'ResourceQuota', 'resourcequotas', true),
  limitRanges: resource<K8s.LimitRange>('v1', 'LimitRange', 'limitranges', true),
  namespaces: resource<K8s.Namespace>('v1', 'Namespace', 'namespaces', false),
  nodes: resource<K8s.Node>('v1', 'Node', 'nodes', false),
  persistentVolumes: resource<K8s.PersistentVolume>('v1', 'PersistentVolume', 'persistentvolumes', false),
  // apps/v1
  deployments: resource<K8s.Deployment>('apps/v1', 'Deployment', 'deployments', true),
  replicaSets: resource<K8s.ReplicaSet>('apps/v1', 'ReplicaSet', 'replicasets', true),
  statefulSets: resource<K8s.StatefulSet>('apps/v1', 'StatefulSet', 'statefulsets', true),
  daemonSets: resource<K8s.DaemonSet>('apps/v1', 'DaemonSet', 'daemonsets', true),
  controllerRevisions: resource<K8s.ControllerRevision>('apps/v1', 'ControllerRevision', 'controllerrevisions', true),
  // batch/v1
  jobs: resource<K8s.Job>('batch/v1', 'Job', 'jobs', true),
  cronJobs: resource<K8s.CronJob>('batch/v1', 'CronJob', 'cronjobs', true),
  // autoscaling/v2
  horizontalPodAutoscalers: resource<K8s.HorizontalPodAutoscaler>('autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true),
  // policy/v1
  podDisruptionBudgets: resource<K8s.PodDisruptionBudget>('policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true),
  // coordination.k8s.io/v1
  leases: resource<K8s.Lease>('coordination.k8s.io/v1', 'Lease', 'leases', true),
  // events.k8s.io/v1
  /** events.k8s.io/v1 Events (the newer API over the same objects as `events`). */
  eventsV1: resource<K8s.EventsV1Event>('events.k8s.io/v1', 'Event', 'events', true),
  // discovery.k8s.io/v1
  endpointSlices: resource<K8s.EndpointSlice>('discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices', true),
  // networking.k8s.io/v1
  ingresses: resource<K8s.Ingress>('networking.k8s.io/v1', 'Ingress', 'ingresses', true),
  networkPolicies: resource<K8s.NetworkPolicy>('networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', true),
  ingressClasses: resource<K8s.IngressClass>('networking.k8s.io/v1', 'IngressClass', 'ingressclasses', false),
  // rbac.authorization.k8s.io/v1
  roles: resource<K8s.Role>('rbac.authorization.k8s.io/v1', 'Role', 'roles', true),
  roleBindings: resource<K8s.RoleBinding>('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true),
  clusterRoles: resource<K8s.ClusterRole>('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false),
  clusterRoleBindings: resource<K8s.ClusterRoleBinding>('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  // storage.k8s.io/v1
  storageClasses: resource<K8s.StorageClass>('storage.k8s.io/v1', 'StorageClass', 'storageclasses', false),
  // scheduling.k8s.io/v1
  priorityClasses: resource<K8s.PriorityClass>('scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false),
  // apiextensions.k8s.io/v1
  customResourceDefinitions: resource<K8s.CustomResourceDefinition>('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false),
  // admissionregistration.k8s.io/v1
  validatingWebhookConfigurations: resource<K8s.ValidatingWebhookConfiguration>('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false),
  mutatingWebhookConfigurations: resource<K8s.MutatingWebhookConfiguration>('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false),
});

