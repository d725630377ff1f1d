/**
 * Validation of the built-in kinds as Kubernetes 1.20 does it (pkg/apis/{core,apps,batch}/validation),
 * for the rules listed in docs/embedded-api-server.md: required fields, formats, enumerations,
 * selector/template agreement and immutable fields on update. Returns kube-apiserver's causes
 * (reason, message, field path); an empty list means valid.
 */
import { arr, Causes, DNS1123_LABEL, DNS1123_LABEL_MSG, goMap, labelKey, labels, nonNegative, o, port, PROTOCOLS, str } from './field-rules.js';
import { sameJsonIgnoringKeyOrder } from '../json-equal.js';

export { Causes } from './field-rules.js';

type Obj = Record<string, unknown>;

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
  if (old !== undefined && s['selector'] !== undefined && !sameJsonIgnoringKeyOrder(s['selector'], o(old['spec'])?.['selector'])) {
    c.invalidValue('spec.selector', s['selector'], 'field is immutable');
  }
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
    if (!sameJsonIgnoringKeyOrder(rest(spec), rest(specOf(old)))) c.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden");
  },
  'batch/Job': (c, obj, old) => {
    const spec = specOf(obj);
    for (const f of ['parallelism', 'completions', 'backoffLimit']) nonNegative(c, `spec.${f}`, spec[f]);
    template(c, 'spec.template', spec['template'], o(spec['selector']), ['OnFailure', 'Never']);
    if (old === undefined) return;
    const os = specOf(old);
    if (!sameJsonIgnoringKeyOrder(spec['template'], os['template'])) c.immutable('spec.template', spec['template']);
    if (!sameJsonIgnoringKeyOrder(spec['completions'], os['completions'])) c.immutable('spec.completions', spec['completions']);
    if (!sameJsonIgnoringKeyOrder(spec['selector'], os['selector'])) c.immutable('spec.selector', spec['selector']);
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
