/**
 * Kubernetes protobuf ↔ JSON for the built-in kinds, as kube-apiserver speaks it to typed clients
 * (kubectl's generators, client-go with `application/vnd.kubernetes.protobuf`).
 *
 * The wire format is protobufjs's; the schema is `data/kube-proto.json`, generated from the
 * `generated.proto` files of the emulated Kubernetes version together with the Go struct tags that
 * decide the JSON form (names, inline structs, omitted zero values) — see scripts/gen-kube-data.mjs.
 * A body is `k8s\0` followed by a `runtime.Unknown` whose `raw` is the object's message.
 */
import protobuf from 'protobufjs/minimal.js';
import { RxkubeError, type ErrorLayer } from 'rxkube';
import data from '../data/kube-proto.json' with { type: 'json' };

const { Reader, Writer } = protobuf;
type ReaderT = protobuf.Reader;
type WriterT = protobuf.Writer;

/** `[name, id, type, rule ('' | 'rep' | 'map'), map key type, JSON name (1 = same), omit zero (1)]`. */
type Row = [string, number, string, string, string, string | number, number];

interface Field {
  readonly name: string;
  readonly id: number;
  readonly type: string;
  readonly message: boolean;
  readonly rule: '' | 'rep' | 'map';
  /** JSON name; '' = the sub-message's fields are inlined in the parent (Go embedded struct). */
  readonly json: string;
  readonly omitZero: boolean;
}

type Json = Record<string, unknown>;

const rows = data.messages as unknown as Record<string, Row[]>;
const gvkToMessage = data.gvk as Record<string, string>;
const messages = new Map<string, { readonly fields: readonly Field[]; readonly byId: ReadonlyMap<number, Field> }>();

function schema(name: string) {
  let m = messages.get(name);
  if (m === undefined) {
    const fields = (rows[name] ?? []).map(([fname, id, type, rule, , json, zero]): Field => ({
      name: fname,
      id,
      type,
      message: type.includes('.'),
      rule: rule as Field['rule'],
      json: json === 1 ? fname : String(json),
      omitZero: zero === 1,
    }));
    m = { fields, byId: new Map(fields.map((f) => [f.id, f])) };
    messages.set(name, m);
  }
  return m;
}

/** The emulated Kubernetes version the schema comes from. */
export const PROTO_VERSION: string = data.version;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';
const TIME = `${META}Time`;
const MICRO_TIME = `${META}MicroTime`;
const DURATION = `${META}Duration`;
const FIELDS_V1 = `${META}FieldsV1`;
const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';
const UNKNOWN = 'k8s.io.apimachinery.pkg.runtime.Unknown';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';

/** Messages whose JSON form is not an object. */
function special(type: string): string | undefined {
  if (type === TIME || type === MICRO_TIME || type === DURATION || type === FIELDS_V1 || type === RAW_EXTENSION || type === INT_OR_STRING || type === QUANTITY) return type;
  if (type.startsWith('k8s.io.apiextensions_apiserver.')) {
    const short = type.slice(type.lastIndexOf('.') + 1);
    if (short === 'JSON' || short.startsWith('JSONSchemaPropsOr')) return short;
  }
  if (type.endsWith('.ExtraValue') || type === `${META}Verbs`) return 'items';
  return undefined;
}

/** A protocol-level decoding error (malformed bytes or an unknown kind); the server answers it with 400. */
export class ProtobufDecodeError extends RxkubeError {
  static override readonly code: string = 'TESTING_PROTOBUF_DECODE';
  static override readonly layer: ErrorLayer = 'testing';
  override readonly name = 'ProtobufDecodeError';
}

// ---- decoding ----------------------------------------------------------------------------------

function toNumber(v: number | { toNumber(): number }): number {
  return typeof v === 'number' ? v : v.toNumber();
}

function readScalar(r: ReaderT, type: string): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return toNumber(r.int64() as unknown as number | { toNumber(): number });
    case 'double':
      return r.double();
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
    default:
      throw new ProtobufDecodeError(`unsupported protobuf type ${type}`);
  }
}

function readValue(r: ReaderT, f: Pick<Field, 'type' | 'message'>): unknown {
  if (!f.message) return readScalar(r, f.type);
  const len = r.uint32();
  const end = r.pos + len;
  return decodeFrom(r, end, f.type);
}

/** The raw field values of one message (proto names), converted to JSON where special. */
function decodeFrom(r: ReaderT, end: number, type: string): unknown {
  const { byId } = schema(type);
  const raw: Json = {};
  while (r.pos < end) {
    const tag = r.uint32();
    const f = byId.get(tag >>> 3);
    const wire = tag & 7;
    if (f === undefined) {
      r.skipType(wire);
      continue;
    }
    if (f.rule === 'map') {
      const len = r.uint32();
      const stop = r.pos + len;
      let key = '';
      let value: unknown = undefined;
      while (r.pos < stop) {
        const t = r.uint32();
        if (t >>> 3 === 1) key = r.string();
        else if (t >>> 3 === 2) value = readValue(r, f);
        else r.skipType(t & 7);
      }
      const m = (raw[f.name] ??= {}) as Json;
      m[key] = value ?? (f.message ? {} : f.type === 'string' || f.type === 'bytes' ? '' : 0);
    } else if (f.rule === 'rep') {
      const list = (raw[f.name] ??= []) as unknown[];
      if (!f.message && wire === 2 && f.type !== 'string' && f.type !== 'bytes') {
        const stop = r.uint32() + r.pos;
        while (r.pos < stop) list.push(readScalar(r, f.type));
      } else list.push(readValue(r, f));
    } else raw[f.name] = readValue(r, f);
  }
  if (r.pos !== end) throw new ProtobufDecodeError('malformed protobuf message');
  return toJson(type, raw);
}

function rfc3339(seconds: number, nanos: number, micro: boolean): string {
  const d = new Date(seconds * 1000);
  const base = d.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let rest = Math.abs(ns);
  const h = Math.floor(rest / 3.6e12);
  rest -= h * 3.6e12;
  const m = Math.floor(rest / 6e10);
  rest -= m * 6e10;
  const s = rest / 1e9;
  return `${sign}${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s}s`;
}

function parseRawJson(b64: unknown): unknown {
  if (typeof b64 !== 'string' || b64 === '') return undefined;
  try {
    return JSON.parse(Buffer.from(b64, 'base64').toString('utf8')) as unknown;
  } catch {
    throw new ProtobufDecodeError('invalid JSON in a raw protobuf field');
  }
}

const ZERO_TIME = Symbol('zero time');

function toJson(type: string, raw: Json): unknown {
  const sp = special(type);
  if (sp !== undefined) {
    switch (sp) {
      case TIME:
      case MICRO_TIME: {
        const seconds = Number(raw['seconds'] ?? 0);
        const nanos = Number(raw['nanos'] ?? 0);
        // Go's zero time: -62135596800 seconds (year 1); encodes to null in JSON.
        if ((seconds === 0 && nanos === 0) || seconds === -62135596800) return ZERO_TIME;
        return rfc3339(seconds, nanos, sp === MICRO_TIME);
      }
      case DURATION:
        return goDuration(Number(raw['duration'] ?? 0));
      case FIELDS_V1:
        return parseRawJson(raw['Raw']) ?? {};
      case RAW_EXTENSION:
        return parseRawJson(raw['raw']) ?? null;
      case 'JSON':
        return parseRawJson(raw['raw']) ?? null;
      case INT_OR_STRING:
        return Number(raw['type'] ?? 0) === 1 ? String(raw['strVal'] ?? '') : Number(raw['intVal'] ?? 0);
      case QUANTITY:
        return String(raw['string'] ?? '');
      case 'items':
        return raw['items'] ?? [];
      case 'JSONSchemaPropsOrArray':
        return raw['schema'] ?? raw['jSONSchemas'] ?? [];
      case 'JSONSchemaPropsOrBool':
        return raw['schema'] ?? raw['allows'] ?? false;
      case 'JSONSchemaPropsOrStringArray':
        return raw['schema'] ?? raw['property'] ?? [];
    }
  }
  const out: Json = {};
  for (const f of schema(type).fields) {
    let v = raw[f.name];
    if (v === undefined || v === ZERO_TIME) continue;
    if (f.omitZero && (v === '' || v === 0 || v === false)) continue;
    if (f.rule === 'map' && v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Json)) if (x === ZERO_TIME) (v as Json)[k] = null;
    }
    if (f.rule === 'rep' && Array.isArray(v)) v = v.map((x) => (x === ZERO_TIME ? null : x));
    if (f.json === '') Object.assign(out, v as Json);
    else out[f.json] = v;
  }
  return out;
}

// ---- encoding ----------------------------------------------------------------------------------

function writeScalar(w: WriterT, id: number, type: string, v: unknown): void {
  switch (type) {
    case 'string':
      w.uint32((id << 3) | 2).string(typeof v === 'string' ? v : String(v));
      return;
    case 'bool':
      w.uint32(id << 3).bool(v === true);
      return;
    case 'int32':
      w.uint32(id << 3).int32(Number(v));
      return;
    case 'int64':
      w.uint32(id << 3).int64(Number(v));
      return;
    case 'double':
      w.uint32((id << 3) | 1).double(Number(v));
      return;
    case 'bytes':
      w.uint32((id << 3) | 2).bytes(Buffer.from(typeof v === 'string' ? v : '', 'base64'));
      return;
  }
}

function parseTime(v: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return undefined;
  const frac = /\.(\d+)/.exec(v)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(frac.padEnd(9, '0').slice(0, 9)) };
}

function parseGoDuration(v: unknown): number {
  if (typeof v !== 'string') return 0;
  const units: Record<string, number> = { h: 3.6e12, m: 6e10, s: 1e9, ms: 1e6, us: 1e3, 'µs': 1e3, ns: 1 };
  let total = 0;
  for (const m of v.matchAll(/([\d.]+)(h|ms|us|µs|ns|m|s)/g)) total += Number(m[1]) * (units[m[2] ?? 's'] ?? 0);
  return v.startsWith('-') ? -total : total;
}

function rawJson(v: unknown): Buffer {
  return Buffer.from(JSON.stringify(v));
}

/** Writes the fields of `type` from its JSON form (or from the special value). */
function encodeInto(w: WriterT, type: string, v: unknown): void {
  const sp = special(type);
  if (sp !== undefined) {
    switch (sp) {
      case TIME:
      case MICRO_TIME: {
        const t = parseTime(v);
        if (t !== undefined) {
          w.uint32(1 << 3).int64(t.seconds);
          w.uint32(2 << 3).int32(sp === MICRO_TIME ? t.nanos : 0);
        }
        return;
      }
      case DURATION:
        w.uint32(1 << 3).int64(parseGoDuration(v));
        return;
      case FIELDS_V1:
      case RAW_EXTENSION:
      case 'JSON':
        if (v !== undefined) w.uint32((1 << 3) | 2).bytes(rawJson(v));
        return;
      case INT_OR_STRING:
        if (typeof v === 'string') w.uint32(1 << 3).int64(1).uint32((3 << 3) | 2).string(v);
        else w.uint32(1 << 3).int64(0).uint32(2 << 3).int32(Number(v));
        return;
      case QUANTITY:
        w.uint32((1 << 3) | 2).string(String(v));
        return;
      case 'items':
        for (const x of Array.isArray(v) ? v : []) w.uint32((1 << 3) | 2).string(String(x));
        return;
      case 'JSONSchemaPropsOrArray':
      case 'JSONSchemaPropsOrBool':
      case 'JSONSchemaPropsOrStringArray': {
        const f = schema(type).fields;
        const schemaField = f.find((x) => x.name === 'schema');
        if (Array.isArray(v)) {
          const list = f.find((x) => x.rule === 'rep');
          if (list !== undefined) for (const x of v) writeField(w, list, x);
        } else if (typeof v === 'boolean') {
          w.uint32(1 << 3).bool(v);
        } else if (schemaField !== undefined) {
          if (sp === 'JSONSchemaPropsOrBool') w.uint32(1 << 3).bool(true);
          writeField(w, schemaField, v);
        }
        return;
      }
    }
  }
  if (v === null || typeof v !== 'object') return;
  const obj = v as Json;
  for (const f of schema(type).fields) {
    const x = f.json === '' ? obj : obj[f.json];
    if (x === undefined || x === null) continue;
    if (f.rule === 'rep') {
      if (Array.isArray(x)) for (const item of x) writeField(w, f, item);
    } else if (f.rule === 'map') {
      if (typeof x !== 'object') continue;
      for (const [k, item] of Object.entries(x as Json)) {
        w.uint32((f.id << 3) | 2).fork();
        w.uint32((1 << 3) | 2).string(k);
        if (item !== null && item !== undefined) writeField(w, { ...f, id: 2 }, item);
        w.ldelim();
      }
    } else writeField(w, f, x);
  }
}

function writeField(w: WriterT, f: Pick<Field, 'id' | 'type' | 'message'>, v: unknown): void {
  if (!f.message) return writeScalar(w, f.id, f.type, v);
  w.uint32((f.id << 3) | 2).fork();
  encodeInto(w, f.type, v);
  w.ldelim();
}

// ---- envelope ----------------------------------------------------------------------------------

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The protobuf message of a group/version/kind, when the emulated version has one. */
export function messageFor(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return gvkToMessage[`${group}/${version}/${kind}`] ?? (group === '' || group === 'meta.k8s.io' ? gvkToMessage[`/v1/${kind}`] : undefined);
}

/** Encodes an object (with apiVersion and kind) as a Kubernetes protobuf body; undefined if its kind has no message. */
export function encodeObject(obj: Json): Buffer | undefined {
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : '';
  const type = messageFor(apiVersion, kind);
  if (type === undefined) return undefined;
  const inner = Writer.create();
  encodeInto(inner, type, obj);
  const raw = inner.finish();
  const w = Writer.create();
  w.uint32((1 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(apiVersion);
  w.uint32((2 << 3) | 2).string(kind);
  w.ldelim();
  w.uint32((2 << 3) | 2).bytes(raw);
  w.uint32((3 << 3) | 2).string('');
  w.uint32((4 << 3) | 2).string('');
  return Buffer.concat([MAGIC, w.finish()]);
}

/** Decodes a Kubernetes protobuf body into the JSON object (apiVersion and kind first). */
export function decodeObject(body: Uint8Array): Json {
  if (body.length < 4 || !MAGIC.equals(Buffer.from(body.subarray(0, 4)))) throw new ProtobufDecodeError('provided object is not a Kubernetes protobuf message (missing the k8s\\0 prefix)');
  const r = Reader.create(body.subarray(4));
  let unknown: Json;
  try {
    unknown = decodeFrom(r, r.len, UNKNOWN) as Json;
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError(`malformed protobuf: ${(e as Error).message}`);
  }
  // runtime.Unknown inlines its TypeMeta.
  const apiVersion = String(unknown['apiVersion'] ?? '');
  const kind = String(unknown['kind'] ?? '');
  const type = messageFor(apiVersion, kind);
  if (type === undefined) throw new ProtobufDecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const raw = Buffer.from(String(unknown['raw'] ?? ''), 'base64');
  const inner = Reader.create(raw);
  let obj: Json;
  try {
    obj = decodeFrom(inner, inner.len, type) as Json;
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError(`malformed protobuf: ${(e as Error).message}`);
  }
  return { apiVersion, kind, ...obj };
}

/**
 * One frame of a protobuf watch stream: a 4-byte big-endian length, then a `meta.v1.WatchEvent` in
 * raw protobuf (no envelope: the stream serializer is the raw one) whose object is an enveloped body.
 */
export function encodeWatchFrame(type: string, object: Json): Buffer | undefined {
  const inner = encodeObject(object);
  if (inner === undefined) return undefined;
  const w = Writer.create();
  w.uint32((1 << 3) | 2).string(type);
  w.uint32((2 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).bytes(inner);
  w.ldelim();
  const ev = w.finish();
  const len = Buffer.alloc(4);
  len.writeUInt32BE(ev.length);
  return Buffer.concat([len, ev]);
}

/** Decodes one frame payload of a protobuf watch stream (without the length prefix): `{ type, object }`. */
export function decodeWatchEvent(payload: Uint8Array): { type: string; object: Json } {
  const r = Reader.create(payload);
  let type = '';
  let object: Json = {};
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) type = r.string();
    else if (tag >>> 3 === 2) {
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const t = r.uint32();
        if (t >>> 3 === 1) object = decodeObject(r.bytes());
        else r.skipType(t & 7);
      }
    } else r.skipType(tag & 7);
  }
  return { type, object };
}
