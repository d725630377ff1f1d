/**
 * Defaulting of the built-in kinds as Kubernetes 1.20 does it (the `SetDefaults_*` functions of
 * pkg/apis/{core,apps,batch}/v1 and the create strategies), plus the effects of the default
 * admission plugins that show in objects (DefaultTolerationSeconds). Objects are plain JSON,
 * changed in place (callers pass a copy).
 */
import type { IpAllocator } from '../strategies/strategy.js';

type Obj = Record<string, unknown>;

/** The object at `parent[key]`, created when absent or not an object. */
export function childObject(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Obj;
  const fresh: Obj = {};
  parent[key] = fresh;
  return fresh;
}

/** The objects of a JSON array (none when not an array). */
export function objectList(v: unknown): Obj[] {
  return Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as Obj[]) : [];
}

/** Sets `o[key]` to `value` when it is absent, null or empty (Go's zero value). */
export function dflt(o: Obj, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
}

function probe(p: unknown): void {
  if (p === null || typeof p !== 'object') return;
  const x = p as Obj;
  dflt(x, 'timeoutSeconds', 1);
  dflt(x, 'periodSeconds', 10);
  dflt(x, 'successThreshold', 1);
  dflt(x, 'failureThreshold', 3);
  if (x['httpGet'] !== null && typeof x['httpGet'] === 'object') dflt(x['httpGet'] as Obj, 'scheme', 'HTTP');
}

function container(c: Obj): void {
  const image = typeof c['image'] === 'string' ? c['image'] : '';
  const tag = image.includes('@') ? 'digest' : (/:([^/:]+)$/.exec(image)?.[1] ?? 'latest');
  dflt(c, 'imagePullPolicy', tag === 'latest' ? 'Always' : 'IfNotPresent');
  dflt(c, 'terminationMessagePath', '/dev/termination-log');
  dflt(c, 'terminationMessagePolicy', 'File');
  if (c['resources'] === undefined) c['resources'] = {};
  for (const p of objectList(c['ports'])) dflt(p, 'protocol', 'TCP');
  for (const e of objectList(c['env'])) {
    const from = e['valueFrom'] as Obj | undefined;
    if (from?.['fieldRef'] !== undefined) dflt(from['fieldRef'] as Obj, 'apiVersion', 'v1');
  }
  probe(c['livenessProbe']);
  probe(c['readinessProbe']);
  probe(c['startupProbe']);
}

const DEFAULT_MODE_SOURCES = ['secret', 'configMap', 'downwardAPI', 'projected'];

/** `SetDefaults_PodSpec` and its containers and volumes. */
export function defaultPodSpec(spec: Obj): void {
  dflt(spec, 'restartPolicy', 'Always');
  dflt(spec, 'terminationGracePeriodSeconds', 30);
  dflt(spec, 'dnsPolicy', 'ClusterFirst');
  if (spec['securityContext'] === undefined) spec['securityContext'] = {};
  dflt(spec, 'schedulerName', 'default-scheduler');
  if (typeof spec['serviceAccount'] === 'string' && spec['serviceAccount'] !== '') dflt(spec, 'serviceAccountName', spec['serviceAccount']);
  for (const c of [...objectList(spec['containers']), ...objectList(spec['initContainers'])]) container(c);
  for (const v of objectList(spec['volumes'])) {
    for (const s of DEFAULT_MODE_SOURCES) if (v[s] !== null && typeof v[s] === 'object') dflt(v[s] as Obj, 'defaultMode', 420);
    if (v['hostPath'] !== null && typeof v['hostPath'] === 'object') dflt(v['hostPath'] as Obj, 'type', '');
    if (Object.keys(v).length === 1 && typeof v['name'] === 'string') v['emptyDir'] = {};
  }
}

function quantityPresent(c: Obj, kind: 'requests' | 'limits', res: string): string | undefined {
  const r = (c['resources'] as Obj | undefined)?.[kind] as Obj | undefined;
  const v = r?.[res];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

/** The QoS class of a pod (`GetPodQOS`, simplified to comparing the quantities as written). */
export function qosClass(spec: Obj): string {
  const cs = [...objectList(spec['containers']), ...objectList(spec['initContainers'])];
  let any = false;
  let guaranteed = true;
  for (const c of cs) {
    for (const res of ['cpu', 'memory']) {
      const limit = quantityPresent(c, 'limits', res);
      const request = quantityPresent(c, 'requests', res) ?? limit;
      if (limit !== undefined || request !== undefined) any = true;
      if (limit === undefined || request !== limit) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** A pod template: its spec's defaults; Go encodes the template's zero creationTimestamp as null. */
function template(t: unknown): void {
  if (t === null || typeof t !== 'object') return;
  const meta = childObject(t as Obj, 'metadata');
  if (meta['creationTimestamp'] === undefined) meta['creationTimestamp'] = null;
  defaultPodSpec(childObject(t as Obj, 'spec'));
}

/** The status a workload starts with (Go's zero values of its non-omitempty fields). */
function initialStatus(o: Obj, create: boolean, status: Obj): void {
  if (create && o['status'] === undefined) o['status'] = status;
}

function labelsOf(t: unknown): Obj | undefined {
  const l = ((t as Obj | undefined)?.['metadata'] as Obj | undefined)?.['labels'];
  return l !== null && typeof l === 'object' ? (l as Obj) : undefined;
}

/** The finalizer the StorageObjectInUseProtection admission plugin adds. */
function protect(o: Obj, finalizer: string): void {
  const meta = childObject(o, 'metadata');
  const f = Array.isArray(meta['finalizers']) ? (meta['finalizers'] as unknown[]) : [];
  if (!f.includes(finalizer)) meta['finalizers'] = [...f, finalizer];
}

/** Defaulting of one kind, in place; `create` adds what the create strategy sets once. */
export type Defaulter = (o: Obj, create: boolean, alloc: IpAllocator) => void;

/** The spec of `o`, created when absent. */
export function specOf(o: Obj): Obj {
  return childObject(o, 'spec');
}

const defaultDeployment: Defaulter = (o, create) => {
  const s = specOf(o);
  dflt(s, 'replicas', 1);
  const st = childObject(s, 'strategy');
  dflt(st, 'type', 'RollingUpdate');
  if (st['type'] === 'RollingUpdate') {
    const ru = childObject(st, 'rollingUpdate');
    dflt(ru, 'maxUnavailable', '25%');
    dflt(ru, 'maxSurge', '25%');
  }
  dflt(s, 'revisionHistoryLimit', 10);
  dflt(s, 'progressDeadlineSeconds', 600);
  template(s['template']);
  initialStatus(o, create, {});
};

const defaultStatefulSet: Defaulter = (o, create) => {
  const s = specOf(o);
  dflt(s, 'replicas', 1);
  dflt(s, 'podManagementPolicy', 'OrderedReady');
  const us = childObject(s, 'updateStrategy');
  dflt(us, 'type', 'RollingUpdate');
  if (us['type'] === 'RollingUpdate') dflt(childObject(us, 'rollingUpdate'), 'partition', 0);
  dflt(s, 'revisionHistoryLimit', 10);
  for (const pvc of objectList(s['volumeClaimTemplates'])) {
    dflt(childObject(pvc, 'spec'), 'volumeMode', 'Filesystem');
    if (pvc['status'] === undefined) pvc['status'] = { phase: 'Pending' };
  }
  template(s['template']);
  initialStatus(o, create, { replicas: 0 });
};

const defaultDaemonSet: Defaulter = (o, create) => {
  const s = specOf(o);
  const us = childObject(s, 'updateStrategy');
  dflt(us, 'type', 'RollingUpdate');
  if (us['type'] === 'RollingUpdate') dflt(childObject(us, 'rollingUpdate'), 'maxUnavailable', 1);
  dflt(s, 'revisionHistoryLimit', 10);
  template(s['template']);
  if (create) {
    // The daemonset strategy records the template generation (deprecated, still written in 1.20).
    const meta = childObject(o, 'metadata');
    meta['annotations'] = { ...((meta['annotations'] as Obj | undefined) ?? {}), 'deprecated.daemonset.template.generation': '1' };
  }
  initialStatus(o, create, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
};

const defaultJob: Defaulter = (o, create) => {
  const s = specOf(o);
  dflt(s, 'completions', 1);
  dflt(s, 'parallelism', 1);
  dflt(s, 'backoffLimit', 6);
  const meta = childObject(o, 'metadata');
  if (create && s['manualSelector'] !== true && typeof meta['uid'] === 'string') {
    // The job strategy generates the selector from the uid and labels the template with it.
    const uid = meta['uid'];
    s['selector'] = { matchLabels: { 'controller-uid': uid } };
    const t = childObject(s, 'template');
    const tm = childObject(t, 'metadata');
    tm['labels'] = { ...(labelsOf(t) ?? {}), 'controller-uid': uid, 'job-name': meta['name'] };
  }
  // A job without labels takes its template's.
  const tl = labelsOf(s['template']);
  if ((meta['labels'] === undefined || Object.keys(meta['labels'] as Obj).length === 0) && tl !== undefined) meta['labels'] = { ...tl };
  template(s['template']);
  initialStatus(o, create, {});
};

const defaultCronJob: Defaulter = (o, create) => {
  const s = specOf(o);
  dflt(s, 'concurrencyPolicy', 'Allow');
  if (s['suspend'] === undefined) s['suspend'] = false;
  dflt(s, 'successfulJobsHistoryLimit', 3);
  dflt(s, 'failedJobsHistoryLimit', 1);
  const jt = s['jobTemplate'] as Obj | undefined;
  if (jt !== undefined && typeof jt === 'object') {
    const jm = childObject(jt, 'metadata');
    if (jm['creationTimestamp'] === undefined) jm['creationTimestamp'] = null;
    template((jt['spec'] as Obj | undefined)?.['template']);
  }
  initialStatus(o, create, {});
};

const startsWith = (status: Obj): Defaulter => (o, create) => initialStatus(o, create, status);

/**
 * The defaults of the built-in kinds without a strategy file of their own, by `group/Kind`
 * (strategies/registry.ts gives each its own strategy object); pods, services, secrets and
 * namespaces keep theirs in their strategy file.
 */
export const KIND_DEFAULTS: Readonly<Record<string, Defaulter>> = {
  '/PodTemplate': (o) => template(o['template']),
  '/ReplicationController': (o) => {
    const s = specOf(o);
    dflt(s, 'replicas', 1);
    const l = labelsOf(s['template']);
    if (s['selector'] === undefined && l !== undefined) s['selector'] = { ...l };
    template(s['template']);
  },
  'apps/Deployment': defaultDeployment,
  'apps/ReplicaSet': (o, create) => {
    const s = specOf(o);
    dflt(s, 'replicas', 1);
    template(s['template']);
    initialStatus(o, create, { replicas: 0 });
  },
  'apps/StatefulSet': defaultStatefulSet,
  'apps/DaemonSet': defaultDaemonSet,
  'batch/Job': defaultJob,
  'batch/CronJob': defaultCronJob,
  '/PersistentVolumeClaim': (o, create) => {
    dflt(specOf(o), 'volumeMode', 'Filesystem');
    if (create) protect(o, 'kubernetes.io/pvc-protection');
    if (create && o['status'] === undefined) o['status'] = { phase: 'Pending' };
  },
  '/PersistentVolume': (o, create) => {
    dflt(specOf(o), 'persistentVolumeReclaimPolicy', 'Retain');
    if (create) protect(o, 'kubernetes.io/pv-protection');
    dflt(specOf(o), 'volumeMode', 'Filesystem');
    if (create && o['status'] === undefined) o['status'] = { phase: 'Pending' };
  },
  '/Endpoints': (o) => {
    for (const ss of objectList(o['subsets'])) for (const p of objectList(ss['ports'])) dflt(p, 'protocol', 'TCP');
  },
  '/Event': (o) => {
    // Go's zero values of the non-omitempty fields (times encode as null).
    for (const f of ['eventTime', 'firstTimestamp', 'lastTimestamp']) if (o[f] === undefined) o[f] = null;
    for (const f of ['reportingComponent', 'reportingInstance']) if (o[f] === undefined) o[f] = '';
    if (o['source'] === undefined) o['source'] = {};
  },
  'networking.k8s.io/Ingress': startsWith({ loadBalancer: {} }),
  'extensions/Ingress': startsWith({ loadBalancer: {} }),
  '/ResourceQuota': startsWith({}),
  'policy/PodDisruptionBudget': startsWith({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
};
