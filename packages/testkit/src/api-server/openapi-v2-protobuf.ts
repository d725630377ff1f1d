/**
 * `/openapi/v2` in protobuf, the form kubectl asks for (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`,
 * gnostic's `openapi.v2.Document` message, OpenAPIv2.proto of github.com/googleapis/gnostic as
 * vendored by Kubernetes 1.20): the definitions, with maps as repeated name/value pairs and vendor
 * extensions as YAML (JSON is YAML). Paths are left empty: kubectl finds kinds through the
 * definitions' `x-kubernetes-group-version-kind`.
 */
import protobuf from 'protobufjs/minimal.js';

const { Writer } = protobuf;
type W = protobuf.Writer;
type Schema = Record<string, unknown>;

/** The media type of the protobuf OpenAPI v2 document. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function str(w: W, id: number, v: unknown): void {
  if (typeof v === 'string' && v !== '') w.uint32((id << 3) | 2).string(v);
}

function anyYaml(w: W, id: number, v: unknown): void {
  // Any { google.protobuf.Any value = 1; string yaml = 2; }
  w.uint32((id << 3) | 2).fork();
  w.uint32((2 << 3) | 2).string(`${JSON.stringify(v)}\n`);
  w.ldelim();
}

function named(w: W, id: number, name: string, value: (w: W) => void): void {
  w.uint32((id << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(name);
  w.uint32((2 << 3) | 2).fork();
  value(w);
  w.ldelim();
  w.ldelim();
}

function schema(w: W, s: Schema): void {
  str(w, 1, s['$ref']);
  str(w, 2, s['format']);
  str(w, 3, s['title']);
  str(w, 4, s['description']);
  if (s['default'] !== undefined) anyYaml(w, 5, s['default']);
  if (typeof s['maximum'] === 'number') w.uint32((7 << 3) | 1).double(s['maximum']);
  if (typeof s['minimum'] === 'number') w.uint32((9 << 3) | 1).double(s['minimum']);
  for (const r of Array.isArray(s['required']) ? s['required'] : []) w.uint32((19 << 3) | 2).string(String(r));
  for (const e of Array.isArray(s['enum']) ? s['enum'] : []) anyYaml(w, 20, e);
  const ap = s['additionalProperties'];
  if (ap !== undefined) {
    w.uint32((21 << 3) | 2).fork();
    if (typeof ap === 'boolean') w.uint32(2 << 3).bool(ap);
    else {
      w.uint32((1 << 3) | 2).fork();
      schema(w, ap as Schema);
      w.ldelim();
    }
    w.ldelim();
  }
  const type = s['type'];
  if (type !== undefined) {
    w.uint32((22 << 3) | 2).fork();
    for (const t of Array.isArray(type) ? type : [type]) w.uint32((1 << 3) | 2).string(String(t));
    w.ldelim();
  }
  const items = s['items'];
  if (items !== undefined && items !== null && typeof items === 'object') {
    w.uint32((23 << 3) | 2).fork();
    for (const it of Array.isArray(items) ? items : [items]) {
      w.uint32((1 << 3) | 2).fork();
      schema(w, it as Schema);
      w.ldelim();
    }
    w.ldelim();
  }
  for (const a of Array.isArray(s['allOf']) ? s['allOf'] : []) {
    w.uint32((24 << 3) | 2).fork();
    schema(w, a as Schema);
    w.ldelim();
  }
  const props = s['properties'];
  if (props !== undefined && props !== null && typeof props === 'object') {
    w.uint32((25 << 3) | 2).fork();
    for (const [k, p] of Object.entries(props as Record<string, Schema>)) named(w, 1, k, (x) => schema(x, p));
    w.ldelim();
  }
  for (const [k, v] of Object.entries(s)) if (k.startsWith('x-')) named(w, 31, k, (x) => x.uint32((2 << 3) | 2).string(`${JSON.stringify(v)}\n`));
}

let cached: { key: object; bytes: Buffer } | undefined;

/** The gnostic protobuf encoding of an OpenAPI v2 document's info and definitions (cached per definitions object). */
export function openApiV2Protobuf(doc: { readonly swagger: string; readonly info: { readonly title: string; readonly version: string }; readonly definitions: Readonly<Record<string, Schema>> }): Buffer {
  if (cached?.key === doc.definitions) return cached.bytes;
  const w = Writer.create();
  w.uint32((1 << 3) | 2).string(doc.swagger);
  w.uint32((2 << 3) | 2).fork();
  w.uint32((1 << 3) | 2).string(doc.info.title);
  w.uint32((2 << 3) | 2).string(doc.info.version);
  w.ldelim();
  w.uint32((8 << 3) | 2).fork().ldelim();
  w.uint32((9 << 3) | 2).fork();
  for (const [name, s] of Object.entries(doc.definitions)) named(w, 1, name, (x) => schema(x, s));
  w.ldelim();
  const bytes = Buffer.from(w.finish());
  cached = { key: doc.definitions, bytes };
  return bytes;
}
