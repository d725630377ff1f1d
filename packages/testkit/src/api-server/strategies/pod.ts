/** Pods: `Pending` on create, graceful deletion once bound to a node, the `/binding` subresource, kubectl's columns. */
import { defaultPodSpec, dflt, objectList, qosClass, specOf, type Defaulter } from '../admission/defaults.js';
import { arr, o } from '../admission/field-rules.js';
import { sameJsonIgnoringKeyOrder } from '../json-equal.js';
import { validatePodSpec, type Validator } from '../admission/validation.js';
import { parseJsonBody } from '../http-io.js';
import { bindPod } from '../pod-binding.js';
import { methodNotAllowed, unknownPath } from '../status-error.js';
import { AGE, at, NAME, num, str, type Column } from '../table-cells.js';
import { strategy } from './default.js';
import type { Obj, StrategyHandler } from './strategy.js';

/** What the DefaultTolerationSeconds admission plugin adds to a pod. */
function defaultTolerations(spec: Obj): void {
  const tolerations = objectList(spec['tolerations']);
  const has = (key: string) => tolerations.some((t) => (t['key'] === key || t['key'] === undefined) && (t['effect'] === 'NoExecute' || t['effect'] === undefined || t['effect'] === ''));
  const add: Obj[] = [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!has(key)) add.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  if (add.length > 0) spec['tolerations'] = [...tolerations, ...add];
}

/** `SetDefaults_Pod` on a pod (create adds tolerations, priority and the initial status). */
export const defaultPod: Defaulter = (o, create) => {
  const s = specOf(o);
  defaultPodSpec(s);
  // SetDefaults_Pod (not of templates).
  if (s['enableServiceLinks'] === undefined) s['enableServiceLinks'] = true;
  if (create) {
    defaultTolerations(s);
    dflt(s, 'priority', 0);
    dflt(s, 'preemptionPolicy', 'PreemptLowerPriority');
    const st = o['status'] as Obj | undefined;
    if (st === undefined || (Object.keys(st).length === 1 && st['phase'] === 'Pending')) o['status'] = { phase: 'Pending', qosClass: qosClass(s) };
  }
};

function validatePodUpdate(c: Parameters<Validator>[0], pod: Obj, old: Obj): void {
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
  if (!sameJsonIgnoringKeyOrder(strip(pod), strip(old))) {
    c.forbidden('spec', 'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)');
  }
}

/** A pod: its spec, and on update only the fields a pod update may change. */
export const validatePod: Validator = (c, obj, old) => {
  // A spec the update leaves as stored has nothing to report: the stored spec passed this
  // validation when it was written (binding sets only `nodeName`, which it does not check), and
  // an unchanged spec changes no field a pod update may not change.
  if (old !== undefined && sameJsonIgnoringKeyOrder(obj['spec'], old['spec'])) return;
  validatePodSpec(c, 'spec', o(obj['spec']));
  if (old !== undefined) validatePodUpdate(c, obj, old);
};

/** The grace period of a pod deletion, as kube-apiserver's pod strategy decides it. */
function podGrace(pod: Obj, asked: number | undefined): number {
  const spec = (pod['spec'] as { nodeName?: string; terminationGracePeriodSeconds?: number } | undefined) ?? {};
  const phase = (pod['status'] as { phase?: string } | undefined)?.phase;
  // Never scheduled, or already finished: nothing runs that a kubelet must stop.
  if (spec.nodeName === undefined || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
  const grace = asked ?? spec.terminationGracePeriodSeconds ?? 30;
  return grace < 0 ? 1 : grace;
}

/** `POST .../pods/{name}/binding` (what a scheduler does). */
const binding: StrategyHandler = async ({ method, service, r, namespace, name, readBody }) => {
  if (name === undefined) throw unknownPath();
  if (method !== 'POST') throw methodNotAllowed(method);
  const body = parseJsonBody(await readBody(), { kind: 'Binding' });
  return { code: 201, body: bindPod(service, r, namespace, name, body) };
};

function podReady(o: Obj): string {
  const containers = at(o, 'spec.containers');
  const statuses = at(o, 'status.containerStatuses');
  const total = Array.isArray(containers) ? containers.length : 0;
  const ready = Array.isArray(statuses) ? statuses.filter((c) => (c as Obj)['ready'] === true).length : 0;
  return `${ready}/${total}`;
}

function podRestarts(o: Obj): number {
  const statuses = at(o, 'status.containerStatuses');
  return Array.isArray(statuses) ? statuses.reduce((a: number, c) => a + num(c, 'restartCount'), 0) : 0;
}

const POD_COLUMNS: readonly Column[] = [
  NAME,
  { name: 'Ready', type: 'string', cell: podReady },
  { name: 'Status', type: 'string', cell: (o) => (at(o, 'metadata.deletionTimestamp') !== undefined ? 'Terminating' : str(o, 'status.reason', str(o, 'status.phase', 'Unknown'))) },
  { name: 'Restarts', type: 'integer', cell: podRestarts },
  AGE,
];

/** The pod strategy (core/v1 pods). */
export const POD_STRATEGY = strategy({
  prepareForCreate: (o, keepStatus) => {
    if (!keepStatus) o['status'] = { phase: 'Pending' };
  },
  defaults: defaultPod,
  validate: validatePod,
  gracePeriodSeconds: podGrace,
  deleteAnswer: 'object',
  subresources: { binding },
  columns: POD_COLUMNS,
});
