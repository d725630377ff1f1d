/**
 * Validation of the built-in kinds as Kubernetes 1.20 does it (pkg/apis/{core,apps,batch}/validation),
 * for the rules listed in docs/embedded-api-server.md: required fields, formats, enumerations,
 * selector/template agreement and immutable fields on update. Returns kube-apiserver's causes
 * (reason, message, field path); an empty list means valid.
 */
import type { FieldCause } from '../status-error.js';

type Obj = Record<string, unknown>;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const QUALIFIED_NAME_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** Go's `%#v` of a map[string]string: `map[string]string{"a":"b", "c":"d"}`. */
function goMap(m: unknown): string {
  const entries = Object.entries(o(m) ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(', ')}}`;
}

/** Go's `%v` of a value in an Invalid value message: strings quoted, numbers as is. */
function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** kube-apiserver's `field.ErrorList`: causes with reason, message and field path. */
export class Causes {
  readonly list: FieldCause[] = [];
  required(field: string, detail = ''): void {
    this.list.push({ reason: 'FieldValueRequired', message: `Required value${detail === '' ? '' : `: ${detail}`}`, field });
  }
  invalidValue(field: string, value: unknown, detail: string): void {
    this.list.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${show(value)}: ${detail}`, field });
  }
  unsupported(field: string, value: unknown, supported: readonly string[]): void {
    this.list.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${show(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`, field });
  }
  duplicate(field: string, value: unknown): void {
    this.list.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${show(value)}`, field });
  }
  forbidden(field: string, detail: string): void {
    this.list.push({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });
  }
  immutable(field: string, value: unknown): void {
    this.invalidValue(field, value, 'field is immutable');
  }
}

function o(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
/** Deep equality of JSON data, as Go's semantic equality: key order does not matter, an undefined value is an absent key. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  const x = a as Obj;
  const y = b as Obj;
  let n = 0;
  for (const k of Object.keys(x)) {
    if (x[k] === undefined) continue;
    n++;
    if (!Object.hasOwn(y, k) || !same(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) n--;
  return n === 0;
}

function labelKey(c: Causes, field: string, key: string): void {
  const slash = key.lastIndexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (name === '' || name.length > 63 || !QUALIFIED_NAME.test(name)) c.invalidValue(field, key, QUALIFIED_NAME_MSG);
}

function labels(c: Causes, field: string, l: unknown): void {
  for (const [k, v] of Object.entries(o(l) ?? {})) {
    labelKey(c, field, k);
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) c.invalidValue(field, v, LABEL_VALUE_MSG);
  }
}

function nonNegative(c: Causes, field: string, v: unknown): void {
  if (typeof v === 'number' && v < 0) c.invalidValue(field, v, 'must be greater than or equal to 0');
}

function port(c: Causes, field: string, v: unknown): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535) c.invalidValue(field, v ?? 0, 'must be between 1 and 65535, inclusive');
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function containers(c: Causes, path: string, list: unknown, required: boolean, names: Set<string>): void {
  const cs = arr(list);
  if (required && cs.length === 0) c.required(path);
  cs.forEach((x, i) => {
    const ct = o(x) ?? {};
    const p = `${path}[${i}]`;
    const name = str(ct['name']);
    if (name === '') c.required(`${p}.name`);
    else if (!DNS1123_LABEL.test(name) || name.length > 63) c.invalidValue(`${p}.name`, name, DNS1123_LABEL_MSG);
    else if (names.has(name)) c.duplicate(`${p}.name`, name);
    names.add(name);
    if (str(ct['image']).trim() === '') c.required(`${p}.image`);
    const pullPolicy = ct['imagePullPolicy'];
    if (pullPolicy !== undefined && !['Always', 'IfNotPresent', 'Never'].includes(str(pullPolicy))) c.unsupported(`${p}.imagePullPolicy`, pullPolicy, ['Always', 'IfNotPresent', 'Never']);
    arr(ct['ports']).forEach((y, j) => {
      const pt = o(y) ?? {};
      port(c, `${p}.ports[${j}].containerPort`, pt['containerPort']);
      if (pt['hostPort'] !== undefined && pt['hostPort'] !== 0) port(c, `${p}.ports[${j}].hostPort`, pt['hostPort']);
      if (pt['protocol'] !== undefined && !PROTOCOLS.includes(str(pt['protocol']))) c.unsupported(`${p}.ports[${j}].protocol`, pt['protocol'], PROTOCOLS);
    });
    arr(ct['env']).forEach((y, j) => {
      if (str(o(y)?.['name']) === '') c.required(`${p}.env[${j}].name`);
    });
  });
}

/** `ValidatePodSpec` (the rules listed in the docs). */
export function validatePodSpec(c: Causes, path: string, spec: Obj | undefined, restartPolicies?: readonly string[]): void {
  const s = spec ?? {};
  const volumes = new Set<string>();
  arr(s['volumes']).forEach((v, i) => {
    const name = str(o(v)?.['name']);
    if (name === '') c.required(`${path}.volumes[${i}].name`);
    else if (!DNS1123_LABEL.test(name)) c.invalidValue(`${path}.volumes[${i}].name`, name, DNS1123_LABEL_MSG);
    else if (volumes.has(name)) c.duplicate(`${path}.volumes[${i}].name`, name);
    volumes.add(name);
  });
  const names = new Set<string>();
  containers(c, `${path}.containers`, s['containers'], true, names);
  containers(c, `${path}.initContainers`, s['initContainers'], false, names);
  const restart = s['restartPolicy'];
  const allowed = restartPolicies ?? ['Always', 'OnFailure', 'Never'];
  if (restart !== undefined && !allowed.includes(str(restart))) {
    // Jobs word it as a required value (ValidateJobSpec).
    if (restartPolicies !== undefined && restartPolicies.includes('Never')) c.required(`${path}.restartPolicy`, `valid values: ${allowed.map((x) => `"${x}"`).join(', ')}`);
    else c.unsupported(`${path}.restartPolicy`, restart, allowed);
  }
  const dns = s['dnsPolicy'];
  const dnsAllowed = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
  if (dns !== undefined && !dnsAllowed.includes(str(dns))) c.unsupported(`${path}.dnsPolicy`, dns, dnsAllowed);
  nonNegative(c, `${path}.terminationGracePeriodSeconds`, s['terminationGracePeriodSeconds']);
  const ads = s['activeDeadlineSeconds'];
  if (typeof ads === 'number' && ads <= 0) c.invalidValue(`${path}.activeDeadlineSeconds`, ads, 'must be between 1 and 2147483647, inclusive');
}

/** A missing selector selects nothing (LabelSelectorAsSelector(nil)): every template mismatches it. */
const NOTHING: Obj = { matchExpressions: [{ key: '', operator: 'Nothing' }] };

function template(c: Causes, path: string, t: unknown, selector: Obj | undefined, restartPolicies: readonly string[] | undefined): void {
  const tpl = o(t);
  if (tpl === undefined) {
    c.required(path);
    return;
  }
  const meta = o(tpl['metadata']) ?? {};
  labels(c, `${path}.metadata.labels`, meta['labels']);
  if (selector !== undefined && !selectorMatches(selector, o(meta['labels']) ?? {})) {
    c.list.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${goMap(meta['labels'])}: \`selector\` does not match template \`labels\``, field: `${path}.metadata.labels` });
  }
  validatePodSpec(c, `${path}.spec`, o(tpl['spec']), restartPolicies);
}

function selectorMatches(sel: Obj, l: Obj): boolean {
  for (const [k, v] of Object.entries(o(sel['matchLabels']) ?? {})) if (l[k] !== v) return false;
  for (const e of arr(sel['matchExpressions'])) {
    const x = o(e) ?? {};
    const key = str(x['key']);
    const values = arr(x['values']);
    const has = Object.hasOwn(l, key);
    switch (x['operator']) {
      case 'In':
        if (!has || !values.includes(l[key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function labelSelector(c: Causes, path: string, sel: unknown, required: boolean, what: string): Obj | undefined {
  const s = o(sel);
  if (s === undefined) {
    if (required) c.required(path);
    return undefined;
  }
  labels(c, `${path}.matchLabels`, s['matchLabels']);
  const empty = Object.keys(o(s['matchLabels']) ?? {}).length === 0 && arr(s['matchExpressions']).length === 0;
  if (empty && required) c.invalidValue(path, s, `empty selector is invalid for ${what}`);
  return s;
}

function workload(c: Causes, kind: string, s: Obj, old: Obj | undefined, restart: readonly string[] | undefined, selectorRequired = true): void {
  nonNegative(c, 'spec.replicas', s['replicas']);
  const sel = labelSelector(c, 'spec.selector', s['selector'], selectorRequired, kind.toLowerCase());
  template(c, 'spec.template', s['template'], sel ?? (selectorRequired ? NOTHING : undefined), restart);
  if (old !== undefined && s['selector'] !== undefined && !same(s['selector'], o(old['spec'])?.['selector'])) {
    c.invalidValue('spec.selector', s['selector'], 'field is immutable');
  }
}

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function validateService(c: Causes, svc: Obj, old: Obj | undefined): void {
  const s = o(svc['spec']) ?? {};
  const type = s['type'];
  if (type !== undefined && !SERVICE_TYPES.includes(str(type))) c.unsupported('spec.type', type, SERVICE_TYPES);
  const ports = arr(s['ports']);
  const headless = s['clusterIP'] === 'None';
  if (ports.length === 0 && type !== 'ExternalName' && !headless) c.required('spec.ports');
  const names = new Set<string>();
  ports.forEach((x, i) => {
    const p = o(x) ?? {};
    const name = str(p['name']);
    if (ports.length > 1 && name === '') c.required(`spec.ports[${i}].name`);
    else if (name !== '' && names.has(name)) c.duplicate(`spec.ports[${i}].name`, name);
    else if (name !== '' && !DNS1123_LABEL.test(name)) c.invalidValue(`spec.ports[${i}].name`, name, DNS1123_LABEL_MSG);
    names.add(name);
    port(c, `spec.ports[${i}].port`, p['port']);
    if (p['protocol'] !== undefined && !PROTOCOLS.includes(str(p['protocol']))) c.unsupported(`spec.ports[${i}].protocol`, p['protocol'], PROTOCOLS);
    const np = p['nodePort'];
    if (np !== undefined && np !== 0 && (type === 'ClusterIP' || type === undefined)) c.forbidden(`spec.ports[${i}].nodePort`, 'may not be used when `type` is \'ClusterIP\'');
    const tp = p['targetPort'];
    if (typeof tp === 'number' && (tp < 1 || tp > 65535)) c.invalidValue(`spec.ports[${i}].targetPort`, tp, 'must be between 1 and 65535, inclusive');
  });
  if (type === 'ExternalName' && str(s['externalName']) === '') c.required('spec.externalName');
  const sa = s['sessionAffinity'];
  if (sa !== undefined && sa !== 'None' && sa !== 'ClientIP') c.unsupported('spec.sessionAffinity', sa, ['ClientIP', 'None']);
  labels(c, 'spec.selector', s['selector']);
  if (old !== undefined) {
    const os = o(old['spec']) ?? {};
    // 1.20 checks clusterIPs (clusterIP is its first entry).
    const oldIps = arr(os['clusterIPs']).length > 0 ? arr(os['clusterIPs']) : os['clusterIP'] !== undefined ? [os['clusterIP']] : [];
    const newIps = arr(s['clusterIPs']).length > 0 ? arr(s['clusterIPs']) : s['clusterIP'] !== undefined ? [s['clusterIP']] : [];
    if (type !== 'ExternalName') {
      oldIps.forEach((ip, i) => {
        if (ip !== '' && newIps[i] !== ip) c.list.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${show(newIps[i] ?? '')}: may not change once set`, field: `spec.clusterIPs[${i}]` });
      });
    }
  }
}

function validateData(c: Causes, field: string, data: unknown): number {
  let size = 0;
  for (const [k, v] of Object.entries(o(data) ?? {})) {
    if (!CONFIG_KEY.test(k) || k.length > 253) c.invalidValue(`${field}[${k}]`, k, CONFIG_KEY_MSG);
    size += typeof v === 'string' ? v.length : 0;
  }
  return size;
}

function immutableData(c: Causes, obj: Obj, old: Obj | undefined, fields: readonly string[]): void {
  if (old === undefined) return;
  if (old['immutable'] === true) {
    for (const f of fields) if (!same(obj[f] ?? {}, old[f] ?? {})) c.forbidden(f, 'field is immutable when `immutable` is set');
    if (obj['immutable'] !== true) c.forbidden('immutable', 'field is immutable when `immutable` is set');
  }
}

function validateSecret(c: Causes, secret: Obj, old: Obj | undefined): void {
  const size = validateData(c, 'data', secret['data']);
  if (size > 1024 * 1024 * 4 / 3) c.list.push({ reason: 'FieldValueTooLong', message: 'Too long: must have at most 1048576 bytes', field: 'data' });
  const data = o(secret['data']) ?? {};
  const type = str(secret['type']);
  const need = (key: string) => {
    if (data[key] === undefined) c.required(`data[${key}]`);
  };
  if (type === 'kubernetes.io/tls') {
    need('tls.crt');
    need('tls.key');
  } else if (type === 'kubernetes.io/dockerconfigjson') need('.dockerconfigjson');
  else if (type === 'kubernetes.io/dockercfg') need('.dockercfg');
  else if (type === 'kubernetes.io/service-account-token') {
    const ann = o(o(secret['metadata'])?.['annotations']) ?? {};
    if (str(ann['kubernetes.io/service-account.name']) === '') c.required('metadata.annotations[kubernetes.io/service-account.name]');
  }
  if (old !== undefined && old['type'] !== secret['type']) c.immutable('type', secret['type'] ?? '');
  immutableData(c, secret, old, ['data']);
}

function validateLease(c: Causes, lease: Obj): void {
  const s = o(lease['spec']) ?? {};
  const d = s['leaseDurationSeconds'];
  if (typeof d === 'number' && d <= 0) c.invalidValue('spec.leaseDurationSeconds', d, 'must be greater than 0');
  nonNegative(c, 'spec.leaseTransitions', s['leaseTransitions']);
  for (const f of ['acquireTime', 'renewTime']) {
    const v = s[f];
    if (v !== undefined && v !== null && (typeof v !== 'string' || Number.isNaN(Date.parse(v)))) c.invalidValue(`spec.${f}`, v, 'must be an RFC 3339 time with microseconds');
  }
}

function validatePodUpdate(c: Causes, pod: Obj, old: Obj): void {
  // Only images, activeDeadlineSeconds and added tolerations may change (ValidatePodUpdate).
  const strip = (p: Obj) => {
    const s = { ...(o(p['spec']) ?? {}) };
    const blank = (l: unknown) => arr(l).map((x) => ({ ...(o(x) ?? {}), image: '' }));
    s['containers'] = blank(s['containers']);
    s['initContainers'] = blank(s['initContainers']);
    delete s['activeDeadlineSeconds'];
    delete s['tolerations'];
    return s;
  };
  if (!same(strip(pod), strip(old))) {
    c.forbidden('spec', 'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)');
  }
}

/** Validation of one kind: adds causes for what is invalid in `obj` (`old`: the stored object on update). */
export type Validator = (c: Causes, obj: Obj, old: Obj | undefined) => void;

/** A new cause list. */
export function causes(): Causes {
  return new Causes();
}

/** What every object is checked for: label keys and values, annotation keys. */
export function validateObjectMeta(c: Causes, obj: Obj): void {
  const meta = o(obj['metadata']) ?? {};
  labels(c, 'metadata.labels', meta['labels']);
  for (const k of Object.keys(o(meta['annotations']) ?? {})) labelKey(c, 'metadata.annotations', k);
}

/** A pod: its spec, and on update only the fields a pod update may change. */
export const validatePod: Validator = (c, obj, old) => {
  validatePodSpec(c, 'spec', o(obj['spec']));
  if (old !== undefined) validatePodUpdate(c, obj, old);
};

/** A service. */
export const validateServiceObject: Validator = (c, obj, old) => validateService(c, obj, old);

/** A secret. */
export const validateSecretObject: Validator = (c, obj, old) => validateSecret(c, obj, old);

/** A config map: data keys, and immutability. */
export const validateConfigMap: Validator = (c, obj, old) => {
  validateData(c, 'data', obj['data']);
  validateData(c, 'binaryData', obj['binaryData']);
  immutableData(c, obj, old, ['data', 'binaryData']);
};

/** A namespace: its name is a DNS label. */
export const validateNamespace: Validator = (c, obj) => {
  const name = str(o(obj['metadata'])?.['name']);
  if (name !== '' && (!DNS1123_LABEL.test(name) || name.length > 63)) c.invalidValue('metadata.name', name, DNS1123_LABEL_MSG);
};

const specOf = (obj: Obj): Obj => o(obj['spec']) ?? {};

const workloadOf = (kind: string): Validator => (c, obj, old) => workload(c, kind, specOf(obj), old, ['Always']);

/**
 * The validation of the built-in kinds without a strategy file of their own, by `group/Kind`
 * (strategies/registry.ts gives each its own strategy object).
 */
export const KIND_VALIDATORS: Readonly<Record<string, Validator>> = {
  'apps/Deployment': workloadOf('Deployment'),
  'apps/ReplicaSet': workloadOf('ReplicaSet'),
  'apps/DaemonSet': workloadOf('DaemonSet'),
  'apps/StatefulSet': (c, obj, old) => {
    const spec = specOf(obj);
    workload(c, 'StatefulSet', spec, old, ['Always']);
    if (old === undefined) return;
    const rest = (s: Obj) => {
      const x = { ...s };
      for (const f of ['replicas', 'template', 'updateStrategy']) delete x[f];
      return x;
    };
    if (!same(rest(spec), rest(specOf(old)))) c.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden");
  },
  'batch/Job': (c, obj, old) => {
    const spec = specOf(obj);
    for (const f of ['parallelism', 'completions', 'backoffLimit']) nonNegative(c, `spec.${f}`, spec[f]);
    template(c, 'spec.template', spec['template'], o(spec['selector']), ['OnFailure', 'Never']);
    if (old === undefined) return;
    const os = specOf(old);
    if (!same(spec['template'], os['template'])) c.immutable('spec.template', spec['template']);
    if (!same(spec['completions'], os['completions'])) c.immutable('spec.completions', spec['completions']);
    if (!same(spec['selector'], os['selector'])) c.immutable('spec.selector', spec['selector']);
  },
  'batch/CronJob': (c, obj) => {
    const spec = specOf(obj);
    if (str(spec['schedule']) === '') c.required('spec.schedule');
    const cp = spec['concurrencyPolicy'];
    if (cp !== undefined && !['Allow', 'Forbid', 'Replace'].includes(str(cp))) c.unsupported('spec.concurrencyPolicy', cp, ['Allow', 'Forbid', 'Replace']);
    const jt = o(o(spec['jobTemplate'])?.['spec']);
    if (jt === undefined) c.required('spec.jobTemplate');
    else template(c, 'spec.jobTemplate.spec.template', jt['template'], undefined, ['OnFailure', 'Never']);
  },
  'coordination.k8s.io/Lease': (c, obj) => validateLease(c, obj),
  '/Node': (c, obj, old) => {
    if (old === undefined) return;
    const spec = specOf(obj);
    const os = specOf(old);
    if (os['podCIDR'] !== undefined && os['podCIDR'] !== '' && spec['podCIDR'] !== os['podCIDR']) c.forbidden('spec.podCIDR', 'node updates may not change podCIDR except from "" to valid');
    if (os['providerID'] !== undefined && os['providerID'] !== '' && spec['providerID'] !== os['providerID']) c.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid');
  },
  '/Event': (c, obj) => {
    const io = o(obj['involvedObject']) ?? {};
    const ns = str(o(obj['metadata'])?.['namespace']);
    if (str(io['namespace']) !== '' && ns !== '' && io['namespace'] !== ns) c.invalidValue('involvedObject.namespace', io['namespace'], 'does not match event.namespace');
    const type = obj['type'];
    if (type !== undefined && type !== '' && type !== 'Normal' && type !== 'Warning') c.unsupported('type', type, ['Normal', 'Warning']);
  },
};
