/**
 * Table columns of more built-in kinds, and the priority-1 columns `kubectl get -o wide` shows, as
 * kube-apiserver 1.20's printers (pkg/printers/internalversion) define them.
 */
type Obj = Record<string, unknown>;
type Cell = string | number | boolean | null;

/** One column (the same shape as the table view's). */
export interface ExtraColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly format?: string;
  readonly priority?: number;
  readonly cell: (o: Obj, now: number) => Cell;
}

function at(o: unknown, path: string): unknown {
  let cur = o;
  for (const p of path.split('.')) cur = typeof cur === 'object' && cur !== null ? (cur as Obj)[p] : undefined;
  return cur;
}
function s(o: unknown, path: string, fallback = '<none>'): string {
  const v = at(o, path);
  return v === undefined || v === null || v === '' ? fallback : typeof v === 'string' ? v : String(v);
}
function n(o: unknown, path: string): number {
  const v = at(o, path);
  return typeof v === 'number' ? v : 0;
}
function list(v: unknown): Obj[] {
  return Array.isArray(v) ? (v as Obj[]) : [];
}

/** `kubectl`'s rendering of a LabelSelector: `app=web,tier in (a,b)`. */
export function formatSelector(sel: unknown): string {
  const x = (sel ?? {}) as Obj;
  const parts: string[] = [];
  for (const [k, v] of Object.entries((x['matchLabels'] ?? {}) as Obj)) parts.push(`${k}=${String(v)}`);
  for (const e of list(x['matchExpressions'])) {
    const key = String(e['key']);
    const values = list(e['values']).map(String).sort().join(',');
    switch (e['operator']) {
      case 'In': parts.push(`${key} in (${values})`); break;
      case 'NotIn': parts.push(`${key} notin (${values})`); break;
      case 'Exists': parts.push(key); break;
      case 'DoesNotExist': parts.push(`!${key}`); break;
    }
  }
  return parts.length === 0 ? '<none>' : parts.join(',');
}

function mapSelector(sel: unknown): string {
  const entries = Object.entries((sel ?? {}) as Obj);
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).sort().join(',');
}

const names = (path: string) => (o: Obj): Cell => list(at(o, path)).map((c) => String(c['name'] ?? '')).join(',');
const images = (path: string) => (o: Obj): Cell => list(at(o, path)).map((c) => String(c['image'] ?? '')).join(',');

/** Containers, Images, Selector: the wide columns of the workload kinds. */
function workloadWide(template: string, selector: (o: Obj) => Cell): ExtraColumn[] {
  return [
    { name: 'Containers', type: 'string', priority: 1, cell: names(`${template}.spec.containers`) },
    { name: 'Images', type: 'string', priority: 1, cell: images(`${template}.spec.containers`) },
    { name: 'Selector', type: 'string', priority: 1, cell: selector },
  ];
}

function servicePorts(o: Obj): Cell {
  const ports = list(at(o, 'spec.ports'));
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${String(p['port'])}${p['nodePort'] !== undefined ? `:${String(p['nodePort'])}` : ''}/${String(p['protocol'] ?? 'TCP')}`).join(',');
}

function externalIp(o: Obj): Cell {
  const type = s(o, 'spec.type', 'ClusterIP');
  const ext = list(at(o, 'spec.externalIPs')).map(String);
  if (type === 'ExternalName') return s(o, 'spec.externalName');
  if (type === 'LoadBalancer') {
    const ing = list(at(o, 'status.loadBalancer.ingress')).map((i) => String(i['ip'] ?? i['hostname'] ?? ''));
    const all = [...ing, ...ext];
    return all.length > 0 ? all.join(',') : '<pending>';
  }
  return ext.length > 0 ? ext.join(',') : '<none>';
}

function duration(ms: number): string {
  const sec = Math.max(0, Math.floor(ms / 1000));
  if (sec < 120) return `${sec}s`;
  const m = Math.floor(sec / 60);
  if (m < 180) return m < 10 && sec % 60 !== 0 ? `${m}m${sec % 60}s` : `${m}m`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h` : `${Math.floor(h / 24)}d`;
}

function jobDuration(o: Obj, now: number): Cell {
  const start = Date.parse(s(o, 'status.startTime', ''));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(s(o, 'status.completionTime', ''));
  return duration((Number.isNaN(end) ? now : end) - start);
}

function age(path: string) {
  return (o: Obj, now: number): Cell => {
    const t = Date.parse(s(o, path, ''));
    return Number.isNaN(t) ? '<unknown>' : duration(now - t);
  };
}

function nodeAddress(type: string) {
  return (o: Obj): Cell => String(list(at(o, 'status.addresses')).find((a) => a['type'] === type)?.['address'] ?? '<none>');
}

/** Columns to insert before Age (`before`) and to append (`after`, the wide ones), per `group/plural`. */
export const EXTRA_COLUMNS: Readonly<Record<string, { readonly before?: readonly ExtraColumn[]; readonly after?: readonly ExtraColumn[] }>> = {
  '/pods': {
    after: [
      { name: 'IP', type: 'string', priority: 1, cell: (o) => s(o, 'status.podIP') },
      { name: 'Node', type: 'string', priority: 1, cell: (o) => s(o, 'spec.nodeName') },
      { name: 'Nominated Node', type: 'string', priority: 1, cell: (o) => s(o, 'status.nominatedNodeName') },
      {
        name: 'Readiness Gates', type: 'string', priority: 1,
        cell: (o) => {
          const gates = list(at(o, 'spec.readinessGates'));
          if (gates.length === 0) return '<none>';
          const ok = gates.filter((g) => list(at(o, 'status.conditions')).some((c) => c['type'] === g['conditionType'] && c['status'] === 'True')).length;
          return `${ok}/${gates.length}`;
        },
      },
    ],
  },
  '/nodes': {
    before: [{ name: 'Roles', type: 'string', cell: (o) => Object.keys((at(o, 'metadata.labels') ?? {}) as Obj).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice('node-role.kubernetes.io/'.length)).sort().join(',') || '<none>' }],
    after: [
      { name: 'Version', type: 'string', cell: (o) => s(o, 'status.nodeInfo.kubeletVersion', '') },
      { name: 'Internal-IP', type: 'string', priority: 1, cell: nodeAddress('InternalIP') },
      { name: 'External-IP', type: 'string', priority: 1, cell: nodeAddress('ExternalIP') },
      { name: 'OS-Image', type: 'string', priority: 1, cell: (o) => s(o, 'status.nodeInfo.osImage', '<unknown>') },
      { name: 'Kernel-Version', type: 'string', priority: 1, cell: (o) => s(o, 'status.nodeInfo.kernelVersion', '<unknown>') },
      { name: 'Container-Runtime', type: 'string', priority: 1, cell: (o) => s(o, 'status.nodeInfo.containerRuntimeVersion', '<unknown>') },
    ],
  },
  'apps/deployments': { after: workloadWide('spec.template', (o) => formatSelector(at(o, 'spec.selector'))) },
  'apps/replicasets': { after: workloadWide('spec.template', (o) => formatSelector(at(o, 'spec.selector'))) },
};

/** Whole column sets of kinds the table view has none for (Name first, as kube). */
export const MORE_COLUMNS: Readonly<Record<string, readonly ExtraColumn[]>> = {
  '/services': [
    { name: 'Type', type: 'string', cell: (o) => s(o, 'spec.type', 'ClusterIP') },
    { name: 'Cluster-IP', type: 'string', cell: (o) => s(o, 'spec.clusterIP') },
    { name: 'External-IP', type: 'string', cell: externalIp },
    { name: 'Port(s)', type: 'string', cell: servicePorts },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
    { name: 'Selector', type: 'string', priority: 1, cell: (o) => mapSelector(at(o, 'spec.selector')) },
  ],
  '/endpoints': [
    { name: 'Endpoints', type: 'string', cell: (o) => {
      const eps = list(at(o, 'subsets')).flatMap((ss) => list(ss['addresses']).flatMap((a) => { const ports = list(ss['ports']); return ports.length === 0 ? [String(a['ip'])] : ports.map((p) => `${String(a['ip'])}:${String(p['port'])}`); }));
      return eps.length === 0 ? '<none>' : eps.length > 3 ? `${eps.slice(0, 3).join(',')} + ${eps.length - 3} more...` : eps.join(',');
    } },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
  ],
  '/serviceaccounts': [
    { name: 'Secrets', type: 'integer', cell: (o) => list(at(o, 'secrets')).length },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
  ],
  '/persistentvolumeclaims': [
    { name: 'Status', type: 'string', cell: (o) => s(o, 'status.phase', '') },
    { name: 'Volume', type: 'string', cell: (o) => s(o, 'spec.volumeName', '') },
    { name: 'Capacity', type: 'string', cell: (o) => s(o, 'status.capacity.storage', '') },
    { name: 'Access Modes', type: 'string', cell: (o) => list(at(o, 'status.accessModes')).map((m) => ({ ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX' })[String(m)] ?? String(m)).join(',') },
    { name: 'StorageClass', type: 'string', cell: (o) => s(o, 'spec.storageClassName', '') },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
    { name: 'VolumeMode', type: 'string', priority: 1, cell: (o) => s(o, 'spec.volumeMode', '') },
  ],
  'apps/statefulsets': [
    { name: 'Ready', type: 'string', cell: (o) => `${n(o, 'status.readyReplicas')}/${n(o, 'spec.replicas')}` },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
    { name: 'Containers', type: 'string', priority: 1, cell: names('spec.template.spec.containers') },
    { name: 'Images', type: 'string', priority: 1, cell: images('spec.template.spec.containers') },
  ],
  'apps/daemonsets': [
    { name: 'Desired', type: 'integer', cell: (o) => n(o, 'status.desiredNumberScheduled') },
    { name: 'Current', type: 'integer', cell: (o) => n(o, 'status.currentNumberScheduled') },
    { name: 'Ready', type: 'integer', cell: (o) => n(o, 'status.numberReady') },
    { name: 'Up-to-date', type: 'integer', cell: (o) => n(o, 'status.updatedNumberScheduled') },
    { name: 'Available', type: 'integer', cell: (o) => n(o, 'status.numberAvailable') },
    { name: 'Node Selector', type: 'string', cell: (o) => mapSelector(at(o, 'spec.template.spec.nodeSelector')) },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
    ...workloadWide('spec.template', (o) => formatSelector(at(o, 'spec.selector'))),
  ],
  'batch/jobs': [
    { name: 'Completions', type: 'string', cell: (o) => `${n(o, 'status.succeeded')}/${at(o, 'spec.completions') === undefined ? 1 : n(o, 'spec.completions')}` },
    { name: 'Duration', type: 'string', cell: jobDuration },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
    ...workloadWide('spec.template', (o) => formatSelector(at(o, 'spec.selector'))),
  ],
  'batch/cronjobs': [
    { name: 'Schedule', type: 'string', cell: (o) => s(o, 'spec.schedule', '') },
    { name: 'Suspend', type: 'string', cell: (o) => (at(o, 'spec.suspend') === true ? 'True' : 'False') },
    { name: 'Active', type: 'integer', cell: (o) => list(at(o, 'status.active')).length },
    { name: 'Last Schedule', type: 'string', cell: age('status.lastScheduleTime') },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
    ...workloadWide('spec.jobTemplate.spec.template', (o) => formatSelector(at(o, 'spec.jobTemplate.spec.selector'))),
  ],
  'networking.k8s.io/ingresses': [
    { name: 'Class', type: 'string', cell: (o) => s(o, 'spec.ingressClassName') },
    { name: 'Hosts', type: 'string', cell: (o) => list(at(o, 'spec.rules')).map((r) => String(r['host'] ?? '*')).join(',') || '*' },
    { name: 'Address', type: 'string', cell: (o) => list(at(o, 'status.loadBalancer.ingress')).map((i) => String(i['ip'] ?? i['hostname'] ?? '')).join(',') },
    { name: 'Ports', type: 'string', cell: (o) => (list(at(o, 'spec.tls')).length > 0 ? '80, 443' : '80') },
    { name: 'Age', type: 'string', cell: age('metadata.creationTimestamp') },
  ],
};

/** Events list with Last Seen first and the name as a wide column, as kubectl shows them (no Name column first). */
export const EVENT_COLUMNS: readonly ExtraColumn[] = [
  { name: 'Last Seen', type: 'string', cell: age('lastTimestamp') },
  { name: 'Type', type: 'string', cell: (o) => s(o, 'type', '') },
  { name: 'Reason', type: 'string', cell: (o) => s(o, 'reason', '') },
  { name: 'Object', type: 'string', cell: (o) => `${s(o, 'involvedObject.kind', '').toLowerCase()}/${s(o, 'involvedObject.name', '')}` },
  { name: 'Subobject', type: 'string', priority: 1, cell: (o) => s(o, 'involvedObject.fieldPath', '') },
  { name: 'Source', type: 'string', priority: 1, cell: (o) => [s(o, 'source.component', ''), s(o, 'source.host', '')].filter((x) => x !== '').join(', ') },
  { name: 'Message', type: 'string', cell: (o) => s(o, 'message', '') },
  { name: 'First Seen', type: 'string', priority: 1, cell: age('firstTimestamp') },
  { name: 'Count', type: 'integer', priority: 1, cell: (o) => n(o, 'count') },
  { name: 'Name', type: 'string', priority: 1, cell: (o) => s(o, 'metadata.name', '') },
];
