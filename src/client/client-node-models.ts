import { clientNode } from './client-node-module.js';
import type { KubeObject, UnstructuredObject } from '../api/kube-object.js';
import { splitApiVersion, type ResourceType } from '../api/resource.js';

/**
 * Conversion between rxkube's objects (the JSON wire shape: timestamps are RFC 3339 strings, field
 * names as on the wire) and @kubernetes/client-node's model classes (`V1Pod`, … : timestamps are
 * `Date`s, a few fields renamed, e.g. `$ref` → `ref`), for code moving from client-node's API
 * classes to rxkube or using both. It walks client-node's own model metadata (each model's
 * `getAttributeTypeMap()`, what client-node's serializer reads), so it converts exactly the
 * fields client-node knows; fields it does not know are kept as they are (client-node's
 * serializer would drop them). Custom resources have no model: their `metadata` is converted and
 * the rest kept.
 */

interface AttributeType {
  readonly name: string;
  readonly baseName: string;
  readonly type: string;
  readonly format: string;
}

interface ModelClass {
  new (): object;
  getAttributeTypeMap(): readonly AttributeType[];
}

type Direction = 'toModel' | 'toWire';

/**
 * The shape of a client-node model object (client-node's `KubernetesObject`), declared here so that
 * rxkube's type declarations do not import client-node's (whose WebSocket typings need `ws` types).
 */
export interface ClientNodeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: object;
}

const PRIMITIVES = new Set(['string', 'boolean', 'double', 'integer', 'long', 'float', 'number', 'any', 'object']);

function modelClass(name: string): ModelClass | undefined {
  const exported = clientNode() as unknown as Readonly<Record<string, unknown>>;
  const candidate = Object.hasOwn(exported, name) ? exported[name] : undefined;
  return typeof candidate === 'function' && typeof (candidate as Partial<ModelClass>).getAttributeTypeMap === 'function'
    ? (candidate as ModelClass)
    : undefined;
}

/** Built-in API groups: the core group, groups without a dot (`apps`, `batch`) and `*.k8s.io`. */
function isBuiltInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

/**
 * client-node's model name for a kind: `V1Pod`, `V1Deployment`, or group-prefixed where two groups
 * share a kind (`CoreV1Event`, `EventsV1Event`). Undefined for custom resources.
 */
function modelName(apiVersion: string | undefined, kind: string | undefined): string | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || kind === '') return undefined;
  const { group, version } = splitApiVersion(apiVersion);
  if (!isBuiltInGroup(group) || version === '') return undefined;
  const v = version.charAt(0).toUpperCase() + version.slice(1);
  const prefix = group === '' ? 'Core' : capitalize(group.split('.')[0] ?? '');
  return [`${prefix}${v}${kind}`, `${v}${kind}`].find((n) => modelClass(n) !== undefined);
}

function formatTime(date: Date, format: string): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('fromClientNode: invalid Date');
  const iso = Date.prototype.toISOString.call(date); // V1MicroTime overrides toISOString
  if (format === 'date') return iso.slice(0, 10);
  if (format === 'date-time-micro') return `${iso.slice(0, -1)}000Z`; // metav1.MicroTime: six fractional digits
  // metav1.Time is RFC 3339 with whole seconds; keep the fraction only when there is one (MicroTime).
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function convert(value: unknown, type: string, format: string, direction: Direction): unknown {
  if (value === null || value === undefined) return value;
  if (PRIMITIVES.has(type.toLowerCase())) return value;
  for (const suffix of [' | null', ' | undefined']) {
    if (type.endsWith(suffix)) return convert(value, type.slice(0, -suffix.length), format, direction);
  }
  if (type.startsWith('Array<') && type.endsWith('>')) {
    const item = type.slice('Array<'.length, -1);
    return Array.isArray(value) ? value.map((v: unknown) => convert(v, item, format, direction)) : value;
  }
  if (type.startsWith('{ [key: string]: ') && type.endsWith('; }')) {
    const item = type.slice('{ [key: string]: '.length, -'; }'.length);
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, item, format, direction)]));
  }
  if (type === 'Date' || type === 'V1MicroTime') {
    // client-node declares MicroTime fields (`eventTime`, `renewTime`, …) as V1MicroTime, a Date.
    if (direction === 'toModel') return typeof value === 'string' ? (type === 'Date' ? new Date(value) : new (clientNode().V1MicroTime)(value)) : value;
    return value instanceof Date ? formatTime(value, type === 'V1MicroTime' ? 'date-time-micro' : format) : value;
  }
  const model = modelClass(type);
  if (model === undefined || typeof value !== 'object' || Array.isArray(value)) return value; // IntOrString, unknown types
  return convertObject(value as Readonly<Record<string, unknown>>, model, direction);
}

function convertObject(value: Readonly<Record<string, unknown>>, model: ModelClass, direction: Direction): Record<string, unknown> {
  const out = (direction === 'toModel' ? new model() : {}) as Record<string, unknown>;
  const known = new Set<string>();
  for (const attr of model.getAttributeTypeMap()) {
    const [from, to] = direction === 'toModel' ? [attr.baseName, attr.name] : [attr.name, attr.baseName];
    known.add(from);
    if (!Object.hasOwn(value, from) || value[from] === undefined) continue;
    out[to] = convert(value[from], attr.type, attr.format, direction);
  }
  for (const [k, v] of Object.entries(value)) if (!known.has(k) && v !== undefined) out[k] = v;
  return out;
}

function convertTop(object: object, type: ResourceType | undefined, direction: Direction, what: string): Record<string, unknown> {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) throw new TypeError(`${what}: expected an object`);
  const o = object as Readonly<Record<string, unknown>>;
  const apiVersion = typeof o['apiVersion'] === 'string' ? o['apiVersion'] : type?.apiVersion;
  const kind = typeof o['kind'] === 'string' ? o['kind'] : type?.kind;
  const name = modelName(apiVersion, kind);
  const model = name === undefined ? undefined : modelClass(name);
  if (model !== undefined) return convertObject(o, model, direction);
  // A custom resource (or a kind client-node does not know): only metadata has a model.
  const out: Record<string, unknown> = { ...o };
  if (o['metadata'] !== undefined) out['metadata'] = convert(o['metadata'], 'V1ObjectMeta', '', direction);
  return out;
}

/**
 * A client-node model object (`V1Pod`, `V1Deployment`, … : `Date` timestamps) from an rxkube
 * object (wire shape: string timestamps). The model class comes from the object's
 * `apiVersion`/`kind`, or from `type` when the object lacks them. `M` is the model type you expect
 * (not checked at run time): `toClientNode<V1Pod>(pod)`.
 */
export function toClientNode<M extends ClientNodeObject = ClientNodeObject>(object: KubeObject, type?: ResourceType): M {
  return convertTop(object, type, 'toModel', 'toClientNode') as M;
}

/**
 * An rxkube object (wire shape: RFC 3339 string timestamps, wire field names) from a client-node
 * model object, e.g. an item of `CoreV1Api.listNamespacedPod`. Give the resource type to type the
 * result and to name the kind when the model lacks `apiVersion`/`kind` (list items often do):
 * `fromClientNode(v1pod, resources.pods)` is a `K8s.Pod`.
 */
export function fromClientNode<T extends KubeObject = UnstructuredObject>(model: object, type?: ResourceType<T>): T {
  return convertTop(model, type, 'toWire', 'fromClientNode') as T;
}
