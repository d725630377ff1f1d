/**
 * Field-ownership scenarios: the same sequence of writes (create, update, merge and strategic
 * merge patch, apply, by several field managers) for the embedded API server and a real
 * kube-apiserver 1.20, on a custom resource and on built-in kinds (whose managedFields also
 * depend on the Go struct: fields defaulting set, fields its zero value has, empty `omitempty`
 * maps and lists dropped; see docs/embedded-api-server.md). Each step
 * is observed as its status and, when it succeeds, `metadata.managedFields` (without `time`, in a
 * fixed order: kube-apiserver orders entries by write time, which two servers cannot share) and
 * the object (without the fields either server makes up).
 *
 * test/e2e/differential-managed-fields.test.ts runs them on both servers and compares; it also
 * records kube-apiserver's answers (`RXKUBE_RECORD_MANAGED_FIELDS=1`) into
 * fixtures/managed-fields-kube-1.20.json, which managed-fields-recorded.test.ts checks the
 * embedded server against without a cluster.
 */

/** One HTTP call: status and parsed JSON body. */
export type Call = (method: string, path: string, body?: unknown, contentType?: string) => Promise<{ readonly status: number; readonly body: unknown }>;

type Json = Record<string, unknown>;

const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** The custom resource the scenarios use: a schema with a string map, a struct and lists of each list type. */
export const GROUP = 'fields.rxkube.example.com';
export const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: {
        spec: { type: 'object', properties: {
          settings: { type: 'object', additionalProperties: { type: 'string' } },
          config: { type: 'object', properties: { size: { type: 'integer' }, mode: { type: 'string' } } },
          tags: { type: 'array', items: { type: 'string' } },
          hosts: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
        } },
      } } },
    }],
  },
};

/** One write: by `manager`, to the scenario's object. */
interface Step {
  readonly label: string;
  readonly manager: string;
  readonly method: 'POST' | 'PUT' | 'MERGE' | 'STRATEGIC' | 'APPLY';
  readonly force?: boolean;
  /** The body: for PUT, the live object is read and this function makes the new one from it. */
  readonly body: Json | ((live: Json) => Json);
}

/** A sequence of writes to one object. */
export interface Scenario {
  readonly name: string;
  /** The collection, relative to the namespace: `/api/v1/namespaces/<ns>/` + this. */
  readonly collection: (ns: string) => string;
  readonly objectName: string;
  readonly steps: readonly Step[];
}

const gadget = (name: string, spec: Json | undefined, metadata: Json = {}): Json => ({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name, ...metadata }, ...(spec === undefined ? {} : { spec }) });
const withSpec = (f: (spec: Json) => Json) => (live: Json): Json => ({ ...live, spec: f({ ...((live['spec'] as Json | undefined) ?? {}) }) });
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const services = (ns: string) => `/api/v1/namespaces/${ns}/services`;
const secrets = (ns: string) => `/api/v1/namespaces/${ns}/secrets`;
const roles = (ns: string) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const gadgets = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/gadgets`;

export const scenarios: readonly Scenario[] = [
  {
    name: 'configmap: data created empty (dropped: nobody owns a field), then a key added and removed by another manager (update)',
    collection: configMaps, objectName: 'cm',
    steps: [
      { label: 'a creates data {} and labels {}', manager: 'a', method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: {} }, data: {} } },
      { label: 'b adds data.x (update: not tracked)', manager: 'b', method: 'PUT', body: (live) => ({ ...live, data: { x: '1' } }) },
      { label: 'b removes data.x (update)', manager: 'b', method: 'PUT', body: (live) => ({ ...live, data: {} }) },
      { label: 'c applies data.y', manager: 'c', method: 'APPLY', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { y: '2' } } },
      { label: 'b adds data.x again (update: tracked now)', manager: 'b', method: 'MERGE', body: { data: { x: '1' } } },
    ],
  },
  {
    name: 'configmap: data and labels created (each a path of its own), then written by other managers (update, merge and strategic merge patch)',
    collection: configMaps, objectName: 'cm2',
    steps: [
      { label: 'a creates data {a} and labels {x}', manager: 'a', method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2', labels: { x: '1' } }, data: { a: '1' } } },
      { label: 'b adds data.b and an annotation (update)', manager: 'b', method: 'PUT', body: (live) => ({ ...live, metadata: { ...(live['metadata'] as Json), annotations: { note: 'n' } }, data: { ...(live['data'] as Json), b: '2' } }) },
      { label: 'c patches label y and binaryData (merge)', manager: 'c', method: 'MERGE', body: { metadata: { labels: { y: '2' } }, binaryData: { bin: 'AQI=' } } },
      { label: 'd patches data.a and a finalizer (strategic)', manager: 'd', method: 'STRATEGIC', body: { metadata: { finalizers: ['example.com/f'] }, data: { a: '3' } } },
      { label: 'e applies data.e', manager: 'e', method: 'APPLY', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2' }, data: { e: '5' } } },
      { label: 'd removes the finalizer and all labels (merge)', manager: 'd', method: 'MERGE', body: { metadata: { finalizers: null, labels: null } } },
    ],
  },
  {
    name: 'pod: created with a minimal spec (the creator owns the defaulted fields), then patched by others',
    collection: pods, objectName: 'p1',
    steps: [
      { label: 'a creates a pod with one container', manager: 'a', method: 'POST', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', labels: { app: 'p' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      { label: 'b patches the image (strategic)', manager: 'b', method: 'STRATEGIC', body: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } },
      { label: 'c patches activeDeadlineSeconds and a label (merge)', manager: 'c', method: 'MERGE', body: { metadata: { labels: { tier: 't' } }, spec: { activeDeadlineSeconds: 30 } } },
      { label: 'd applies an annotation', manager: 'd', method: 'APPLY', body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', annotations: { d: 'x' } } } },
      { label: 'c updates activeDeadlineSeconds (update: the whole pod sent back)', manager: 'c', method: 'PUT', body: (live) => ({ ...live, spec: { ...(live['spec'] as Json), activeDeadlineSeconds: 20 } }) },
    ],
  },
  {
    name: 'deployment: created with a minimal spec (defaulted fields and the pod template), then scaled and patched',
    collection: deployments, objectName: 'd1',
    steps: [
      {
        label: 'a creates a deployment', manager: 'a', method: 'POST',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1' }, spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] } } } },
      },
      { label: 'b patches replicas (merge)', manager: 'b', method: 'MERGE', body: { spec: { replicas: 3 } } },
      { label: 'c patches the image and a volume (strategic)', manager: 'c', method: 'STRATEGIC', body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2', volumeMounts: [{ name: 'v', mountPath: '/v' }] }], volumes: [{ name: 'v', emptyDir: {} }] } } } } },
      { label: 'b updates the strategy (update)', manager: 'b', method: 'PUT', body: (live) => ({ ...live, spec: { ...(live['spec'] as Json), strategy: { type: 'Recreate' } } }) },
    ],
  },
  {
    name: 'deployment: empty omitempty lists and maps dropped on decode (nobody owns them), an empty struct owned',
    collection: deployments, objectName: 'd2',
    steps: [
      {
        label: 'a creates a deployment with empty lists and maps', manager: 'a', method: 'POST',
        body: {
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd2', annotations: {} },
          spec: { selector: { matchLabels: { app: 'd2' } }, template: { metadata: { labels: { app: 'd2' }, annotations: {} }, spec: {
            containers: [{ name: 'c', image: 'nginx:1', args: [], env: [], ports: [], resources: { limits: {} } }],
            nodeSelector: {}, tolerations: [], volumes: [], imagePullSecrets: [], affinity: {},
          } } },
        },
      },
      { label: 'b patches empty lists and maps in (merge: no change)', manager: 'b', method: 'MERGE', body: { spec: { template: { spec: { nodeSelector: {}, tolerations: [] } } } } },
      { label: 'b patches a node selector in (merge)', manager: 'b', method: 'MERGE', body: { spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } } } } },
    ],
  },
  {
    name: 'deployment: applied (the applier owns what it applied, not the defaults), then scaled by another manager',
    collection: deployments, objectName: 'd3',
    steps: [
      {
        label: 'a applies a deployment', manager: 'a', method: 'APPLY',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd3', labels: { app: 'd3' } }, spec: { selector: { matchLabels: { app: 'd3' } }, template: { metadata: { labels: { app: 'd3' } }, spec: { containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 }] }] } } } },
      },
      { label: 'b patches replicas (merge)', manager: 'b', method: 'MERGE', body: { spec: { replicas: 2 } } },
      { label: 'b adds an env var (strategic)', manager: 'b', method: 'STRATEGIC', body: { spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'E', value: 'v' }] }] } } } } },
      {
        label: 'a applies replicas 3 (conflict)', manager: 'a', method: 'APPLY',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd3', labels: { app: 'd3' } }, spec: { replicas: 3, selector: { matchLabels: { app: 'd3' } }, template: { metadata: { labels: { app: 'd3' } }, spec: { containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 }] }] } } } },
      },
      {
        label: 'a applies replicas 3 (force)', manager: 'a', method: 'APPLY', force: true,
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd3', labels: { app: 'd3' } }, spec: { replicas: 3, selector: { matchLabels: { app: 'd3' } }, template: { metadata: { labels: { app: 'd3' } }, spec: { containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 }] }] } } } },
      },
    ],
  },
  {
    name: 'secret: stringData written as data, owned by its writer',
    collection: secrets, objectName: 'sec',
    steps: [
      { label: 'a creates a secret with stringData', manager: 'a', method: 'POST', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, stringData: { u: 'x' } } },
      { label: 'b patches stringData (merge)', manager: 'b', method: 'MERGE', body: { stringData: { v: 'y' } } },
      { label: 'c replaces data (update)', manager: 'c', method: 'PUT', body: (live) => ({ ...live, data: { w: 'eg==' } }) },
    ],
  },
  {
    name: 'role: a list without omitempty (atomic) created empty, then filled and emptied by others',
    collection: roles, objectName: 'r1',
    steps: [
      { label: 'a creates a role with rules []', manager: 'a', method: 'POST', body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r1' }, rules: [] } },
      { label: 'b adds a rule (merge)', manager: 'b', method: 'MERGE', body: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } },
      { label: 'c empties the rules (update)', manager: 'c', method: 'PUT', body: (live) => ({ ...live, rules: [] }) },
    ],
  },
  {
    name: 'service: headless, created with one port, then patched',
    collection: services, objectName: 's1',
    steps: [
      { label: 'a creates a headless service', manager: 'a', method: 'POST', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's1' }, spec: { clusterIP: 'None', selector: { app: 's' }, ports: [{ name: 'web', port: 80 }] } } },
      { label: 'b adds a port (update)', manager: 'b', method: 'PUT', body: (live) => ({ ...live, spec: { ...(live['spec'] as Json), ports: [...(live['spec'] as { ports: Json[] }).ports, { name: 'metrics', port: 9090 }] } }) },
      { label: 'c patches the selector (merge)', manager: 'c', method: 'MERGE', body: { spec: { selector: { app: 's', tier: 'x' } } } },
      { label: 'd adds a port (strategic: merged by port)', manager: 'd', method: 'STRATEGIC', body: { spec: { ports: [{ name: 'grpc', port: 9091 }] } } },
      { label: 'e changes port 80 (strategic: merged by port)', manager: 'e', method: 'STRATEGIC', body: { spec: { ports: [{ port: 80, name: 'http' }] } } },
    ],
  },
  {
    name: 'custom resource: empty string map owned whole, a key added and removed by another manager (update)',
    collection: gadgets, objectName: 'g1',
    steps: [
      { label: 'a creates spec.settings {}', manager: 'a', method: 'POST', body: gadget('g1', { settings: {} }) },
      { label: 'b adds settings.x (update)', manager: 'b', method: 'PUT', body: withSpec((s) => ({ ...s, settings: { x: '1' } })) },
      { label: 'c adds settings.y (update)', manager: 'c', method: 'PUT', body: withSpec((s) => ({ ...s, settings: { ...(s['settings'] as Json), y: '2' } })) },
      { label: 'b removes settings.x (update)', manager: 'b', method: 'PUT', body: withSpec((s) => ({ ...s, settings: { y: '2' } })) },
      { label: 'c removes settings.y (update)', manager: 'c', method: 'PUT', body: withSpec((s) => ({ ...s, settings: {} })) },
    ],
  },
  {
    name: 'custom resource: empty map and struct owned whole, deeper fields merge-patched by another manager',
    collection: gadgets, objectName: 'g2',
    steps: [
      { label: 'a creates spec.settings {} and spec.config {}', manager: 'a', method: 'POST', body: gadget('g2', { settings: {}, config: {} }) },
      { label: 'b patches settings.x and config.size', manager: 'b', method: 'MERGE', body: { spec: { settings: { x: '1' }, config: { size: 3 } } } },
      { label: 'a patches config.mode', manager: 'a', method: 'MERGE', body: { spec: { config: { mode: 'fast' } } } },
      { label: 'b patches settings.x and config.size away', manager: 'b', method: 'MERGE', body: { spec: { settings: { x: null }, config: { size: null } } } },
      { label: 'b patches settings away whole', manager: 'b', method: 'MERGE', body: { spec: { settings: null } } },
    ],
  },
  {
    name: 'custom resource: lists owned whole (atomic, empty map list), then items written by another manager',
    collection: gadgets, objectName: 'g3',
    steps: [
      { label: 'a creates spec.tags [x] and spec.ports []', manager: 'a', method: 'POST', body: gadget('g3', { tags: ['x'], ports: [] }) },
      { label: 'b patches tags [x, y]', manager: 'b', method: 'MERGE', body: { spec: { tags: ['x', 'y'] } } },
      { label: 'b adds port web (update)', manager: 'b', method: 'PUT', body: withSpec((s) => ({ ...s, ports: [{ name: 'web', port: 80 }] })) },
      { label: 'c changes port web (update)', manager: 'c', method: 'PUT', body: withSpec((s) => ({ ...s, ports: [{ name: 'web', port: 8080 }] })) },
      { label: 'b removes port web (update)', manager: 'b', method: 'PUT', body: withSpec((s) => ({ ...s, ports: [] })) },
    ],
  },
  {
    name: 'custom resource: apply over an empty map another manager applied or created',
    collection: gadgets, objectName: 'g4',
    steps: [
      { label: 'a applies spec.settings {}', manager: 'a', method: 'APPLY', body: gadget('g4', { settings: {} }) },
      { label: 'b applies settings.x', manager: 'b', method: 'APPLY', body: gadget('g4', { settings: { x: '1' } }) },
      { label: 'c updates settings.y', manager: 'c', method: 'MERGE', body: { spec: { settings: { y: '2' } } } },
      { label: 'b applies without settings', manager: 'b', method: 'APPLY', body: gadget('g4', undefined) },
      { label: 'a applies without settings', manager: 'a', method: 'APPLY', body: gadget('g4', undefined) },
    ],
  },
  {
    name: 'custom resource: apply conflicts and force over a struct owned whole by an update',
    collection: gadgets, objectName: 'g5',
    steps: [
      { label: 'a creates spec.config {} (update)', manager: 'a', method: 'POST', body: gadget('g5', { config: {} }) },
      { label: 'b applies config.size 1', manager: 'b', method: 'APPLY', body: gadget('g5', { config: { size: 1 } }) },
      { label: 'c applies config.size 2 (conflict)', manager: 'c', method: 'APPLY', body: gadget('g5', { config: { size: 2 } }) },
      { label: 'c applies config.size 2 (force)', manager: 'c', method: 'APPLY', force: true, body: gadget('g5', { config: { size: 2 } }) },
      { label: 'a replaces config with {} (update)', manager: 'a', method: 'PUT', body: withSpec((s) => ({ ...s, config: {} })) },
      { label: 'b applies config {} (conflict?)', manager: 'b', method: 'APPLY', body: gadget('g5', { config: {} }) },
      { label: 'c applies config.size 3', manager: 'c', method: 'APPLY', body: gadget('g5', { config: { size: 3 } }) },
    ],
  },
  {
    name: 'custom resource: labels and a set list appearing, owned whole, then written inside by others',
    collection: gadgets, objectName: 'g6',
    steps: [
      { label: 'a creates labels {app} and spec.hosts []', manager: 'a', method: 'POST', body: gadget('g6', { hosts: [] }, { labels: { app: 'g' } }) },
      { label: 'b adds a label and a host (update)', manager: 'b', method: 'PUT', body: (live) => ({ ...live, metadata: { ...(live['metadata'] as Json), labels: { app: 'g', tier: 'x' } }, spec: { hosts: ['h1'] } }) },
      { label: 'c patches the app label', manager: 'c', method: 'MERGE', body: { metadata: { labels: { app: 'h' } } } },
      { label: 'd applies a host and the tier label', manager: 'd', method: 'APPLY', body: gadget('g6', { hosts: ['h1', 'h2'] }, { labels: { tier: 'x' } }) },
      { label: 'e applies the tier label changed (conflict)', manager: 'e', method: 'APPLY', body: gadget('g6', undefined, { labels: { tier: 'y' } }) },
      { label: 'e applies the tier label changed (force)', manager: 'e', method: 'APPLY', force: true, body: gadget('g6', undefined, { labels: { tier: 'y' } }) },
      { label: 'a removes all labels and hosts (update)', manager: 'a', method: 'PUT', body: (live) => ({ ...live, metadata: { ...(live['metadata'] as Json), labels: {} }, spec: { hosts: [] } }) },
    ],
  },
];

/** What a step observed: its status, and on success the normalized managedFields and object. */
export type Observation = readonly [label: string, status: number, managedFields?: unknown, object?: unknown];

const MASKED_METADATA = new Set(['uid', 'creationTimestamp', 'resourceVersion', 'selfLink', 'managedFields', 'namespace']);

/** The object without what either server makes up (ids, times, versions, the namespace). */
export function normalizeObject(o: unknown): unknown {
  if (typeof o !== 'object' || o === null) return o;
  const out: Json = { ...(o as Json) };
  const meta: Json = { ...((out['metadata'] as Json | undefined) ?? {}) };
  for (const k of MASKED_METADATA) delete meta[k];
  out['metadata'] = meta;
  return out;
}

/** managedFields without `time`, ordered by operation, manager and subresource. */
export function normalizeManagedFields(entries: unknown): unknown {
  if (!Array.isArray(entries)) return null;
  return entries
    .map((e: Json) => {
      const copy = { ...e };
      delete copy['time'];
      return copy;
    })
    .sort((p, q) => {
      const key = (e: Json) => `${String(e['operation'])}\u0000${String(e['manager'])}\u0000${String(e['subresource'] ?? '')}`;
      return key(p) < key(q) ? -1 : key(p) > key(q) ? 1 : 0;
    });
}

/** Runs one scenario in namespace `ns` (which must exist); the CRD must be served when a scenario uses it. */
export async function runScenario(call: Call, ns: string, s: Scenario): Promise<Observation[]> {
  const seen: Observation[] = [];
  const collection = s.collection(ns);
  for (const step of s.steps) {
    const q = `fieldManager=${step.manager}${step.force === true ? '&force=true' : ''}`;
    let res: { status: number; body: unknown };
    if (step.method === 'POST') res = await call('POST', `${collection}?${q}`, step.body);
    else if (step.method === 'PUT') {
      const live = (await call('GET', `${collection}/${s.objectName}`)).body as Json;
      const body = typeof step.body === 'function' ? step.body(live) : step.body;
      res = await call('PUT', `${collection}/${s.objectName}?${q}`, body);
    } else res = await call('PATCH', `${collection}/${s.objectName}?${q}`, step.body, step.method === 'MERGE' ? MERGE : step.method === 'STRATEGIC' ? STRATEGIC : APPLY);
    const body = res.body as Json & { metadata?: Json };
    if (res.status >= 300) seen.push([step.label, res.status, body['reason'] ?? null, body['message'] ?? null]);
    else seen.push([step.label, res.status, normalizeManagedFields(body.metadata?.['managedFields']), normalizeObject(body)]);
  }
  // Deleted (not observed): a real server runs no namespace controller, so what its namespace
  // holds stays, and pods and Deployments left there reach the controllers later tests run.
  await call('DELETE', `${collection}/${s.objectName}?gracePeriodSeconds=0`);
  return seen;
}

/** Creates the CRD and waits (bounded) until its resource is served in `ns`. */
export async function serveCrd(call: Call, ns: string): Promise<void> {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const created = await call('POST', crds, crd);
  if (created.status === 409) {
    // Left by an earlier run (the real server is shared): brought to this schema.
    const existing = (await call('GET', `${crds}/${crd.metadata.name}`)).body as { metadata: Json };
    const updated = await call('PUT', `${crds}/${crd.metadata.name}`, { ...crd, metadata: { ...crd.metadata, resourceVersion: existing.metadata['resourceVersion'] } });
    if (updated.status !== 200) throw new Error(`updating the Gadget CRD: ${updated.status} ${JSON.stringify(updated.body)}`);
  } else if (created.status !== 201) throw new Error(`creating the Gadget CRD: ${created.status} ${JSON.stringify(created.body)}`);
  for (let i = 0; i < 100; i++) {
    if ((await call('GET', `/apis/${GROUP}/v1/namespaces/${ns}/gadgets`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the Gadget CRD was not served within 10 s');
}

/** Runs every scenario (each object name once per namespace); results by scenario name. */
export async function runScenarios(call: Call, ns: string): Promise<Record<string, Observation[]>> {
  await serveCrd(call, ns);
  const out: Record<string, Observation[]> = {};
  for (const s of scenarios) out[s.name] = await runScenario(call, ns, s);
  return out;
}
