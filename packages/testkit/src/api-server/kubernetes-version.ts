/**
 * The Kubernetes versions the embedded server emulates, and what differs between them: the
 * `/version` answer, which built-in group versions are served (APIs removed or added after 1.20),
 * and whether streaming lists (`sendInitialEvents`, the WatchList feature) are served.
 * The built-in data (`data/kube-openapi.json`) is 1.20's; a later version is derived from it by
 * the tables below (see docs/embedded-api-server.md, "Emulated Kubernetes version").
 */

/** A Kubernetes version the embedded server can emulate (`major.minor`). */
export type KubernetesVersion = '1.20' | '1.34';

/** Every version {@link KubernetesVersion} names, oldest first. */
export const KUBERNETES_VERSIONS: readonly KubernetesVersion[] = ['1.20', '1.34'];

/** The version the embedded server emulates unless told otherwise. */
export const DEFAULT_KUBERNETES_VERSION: KubernetesVersion = '1.34';

/** What `/version` answers (kube-apiserver's `version.Info`). */
export interface KubernetesVersionInfo {
  readonly major: string;
  readonly minor: string;
  readonly gitVersion: string;
  readonly gitCommit: string;
  readonly gitTreeState: string;
  readonly buildDate: string;
  readonly goVersion: string;
  readonly compiler: string;
  readonly platform: string;
}

const PATCH_RELEASE: Readonly<Record<KubernetesVersion, { readonly patch: string; readonly goVersion: string }>> = {
  '1.20': { patch: 'v1.20.2', goVersion: 'go1.15.5' },
  '1.34': { patch: 'v1.34.0', goVersion: 'go1.24.6' },
};

/** True when `v` names a version the embedded server emulates. */
export function isKubernetesVersion(v: unknown): v is KubernetesVersion {
  return typeof v === 'string' && (KUBERNETES_VERSIONS as readonly string[]).includes(v);
}

/** The minor number of a version (`'1.34'` → 34). */
export function minorOf(v: KubernetesVersion): number {
  return Number(v.slice(v.indexOf('.') + 1));
}

/** The `/version` answer of the emulated version (the git version marked `+rxkube`). */
export function versionInfo(v: KubernetesVersion): KubernetesVersionInfo {
  const release = PATCH_RELEASE[v];
  return {
    major: '1',
    minor: String(minorOf(v)),
    gitVersion: `${release.patch}+rxkube`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: release.goVersion,
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** The patch release the emulated version's OpenAPI `info.version` names (`v1.20.2`, `v1.34.0`). */
export function releaseOf(v: KubernetesVersion): string {
  return PATCH_RELEASE[v].patch;
}

/**
 * Whether watches serve streaming lists (`sendInitialEvents=true` with
 * `resourceVersionMatch=NotOlderThan`): from 1.27 (the WatchList feature; on by default again
 * in 1.34). Before, a watch with `resourceVersionMatch` is 422 Invalid and `sendInitialEvents`
 * is an unknown parameter (ignored).
 */
export function servesStreamingLists(v: KubernetesVersion): boolean {
  return minorOf(v) >= 27;
}

/**
 * When a built-in API is served: from minor `since` (default: always) until before minor
 * `removedIn` (default: still served). The gate registrations of later APIs use, e.g.
 * `{ since: 30 }` for admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.
 */
export interface ServedLifetime {
  readonly since?: number;
  readonly removedIn?: number;
}

/** True when an API with this lifetime is served by the emulated version. */
export function isServedIn(v: KubernetesVersion, lifetime: ServedLifetime): boolean {
  const minor = minorOf(v);
  return (lifetime.since === undefined || minor >= lifetime.since) && (lifetime.removedIn === undefined || minor < lifetime.removedIn);
}

/**
 * Built-in group versions of 1.20 removed later (`group/version`, or `group/version/plural` for a
 * single resource), with the minor that removed them (Kubernetes' deprecated API migration guide).
 */
const REMOVED_IN: Readonly<Record<string, number>> = {
  'admissionregistration.k8s.io/v1beta1': 22,
  'apiextensions.k8s.io/v1beta1': 22,
  'apiregistration.k8s.io/v1beta1': 22,
  'authentication.k8s.io/v1beta1': 22,
  'authorization.k8s.io/v1beta1': 22,
  'certificates.k8s.io/v1beta1': 22,
  'coordination.k8s.io/v1beta1': 22,
  'extensions/v1beta1': 22,
  'networking.k8s.io/v1beta1': 22,
  'rbac.authorization.k8s.io/v1beta1': 22,
  'scheduling.k8s.io/v1beta1': 22,
  'storage.k8s.io/v1beta1': 22,
  'batch/v1beta1': 25,
  'discovery.k8s.io/v1beta1': 25,
  'events.k8s.io/v1beta1': 25,
  'autoscaling/v2beta1': 25,
  'policy/v1beta1': 25,
  'node.k8s.io/v1beta1': 25,
  'autoscaling/v2beta2': 26,
  'flowcontrol.apiserver.k8s.io/v1beta1': 26,
};

/** True when the emulated version serves a group version of 1.20's data for `plural`. */
export function servesDataVersion(v: KubernetesVersion, group: string, version: string, plural: string): boolean {
  const removedIn = REMOVED_IN[`${group}/${version}/${plural}`] ?? REMOVED_IN[`${group}/${version}`];
  return isServedIn(v, removedIn === undefined ? {} : { removedIn });
}

/**
 * A built-in resource version added after 1.20 (GA and on by default). `like` names the 1.20
 * group version whose shape (kind, scope, verbs, `/status`) and OpenAPI schema it takes, when
 * it is the promotion of a beta that 1.20 has; otherwise the entry describes it whole and it has
 * no schema in the data.
 */
export interface AddedResourceVersion {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly since: number;
  readonly like?: string;
  readonly namespaced?: boolean;
  readonly hasStatus?: boolean;
  readonly verbs?: readonly string[];
}

const CRUD = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * Resource versions served by default after 1.20 (GA APIs). ValidatingAdmissionPolicy (1.30) is
 * not listed: its registration (admission policies) gates itself with {@link isServedIn}.
 */
export const ADDED_RESOURCE_VERSIONS: readonly AddedResourceVersion[] = [
  { group: 'batch', version: 'v1', plural: 'cronjobs', kind: 'CronJob', since: 21, like: 'v1beta1' },
  { group: 'discovery.k8s.io', version: 'v1', plural: 'endpointslices', kind: 'EndpointSlice', since: 21, like: 'v1beta1' },
  { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', since: 21, like: 'v1beta1' },
  { group: 'autoscaling', version: 'v2', plural: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', since: 23, like: 'v2beta2' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', plural: 'flowschemas', kind: 'FlowSchema', since: 29, like: 'v1beta1' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', plural: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', since: 29, like: 'v1beta1' },
  { group: 'storage.k8s.io', version: 'v1', plural: 'csistoragecapacities', kind: 'CSIStorageCapacity', since: 24, namespaced: true, verbs: CRUD },
  { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattributesclasses', kind: 'VolumeAttributesClass', since: 34, namespaced: false, verbs: CRUD },
  { group: 'authentication.k8s.io', version: 'v1', plural: 'selfsubjectreviews', kind: 'SelfSubjectReview', since: 28, namespaced: false, verbs: ['create'] },
  { group: 'networking.k8s.io', version: 'v1', plural: 'ipaddresses', kind: 'IPAddress', since: 33, namespaced: false, verbs: CRUD },
  { group: 'networking.k8s.io', version: 'v1', plural: 'servicecidrs', kind: 'ServiceCIDR', since: 33, namespaced: false, hasStatus: true, verbs: CRUD },
  { group: 'resource.k8s.io', version: 'v1', plural: 'deviceclasses', kind: 'DeviceClass', since: 34, namespaced: false, verbs: CRUD },
  { group: 'resource.k8s.io', version: 'v1', plural: 'resourceclaims', kind: 'ResourceClaim', since: 34, namespaced: true, hasStatus: true, verbs: CRUD },
  { group: 'resource.k8s.io', version: 'v1', plural: 'resourceclaimtemplates', kind: 'ResourceClaimTemplate', since: 34, namespaced: true, verbs: CRUD },
  { group: 'resource.k8s.io', version: 'v1', plural: 'resourceslices', kind: 'ResourceSlice', since: 34, namespaced: false, verbs: CRUD },
];

/** The resource versions added after 1.20 that the emulated version serves. */
export function addedResourceVersions(v: KubernetesVersion): AddedResourceVersion[] {
  return ADDED_RESOURCE_VERSIONS.filter((a) => isServedIn(v, { since: a.since }));
}

/**
 * Groups whose version priority is not the usual order (GA before beta, higher first), per
 * version: in 1.20 autoscaling prefers v1 over its betas; from 1.23 v2 is the usual order.
 */
export function explicitVersionOrder(v: KubernetesVersion): Readonly<Record<string, readonly string[]>> {
  return minorOf(v) < 23 ? { autoscaling: ['v1', 'v2beta1', 'v2beta2'] } : {};
}
