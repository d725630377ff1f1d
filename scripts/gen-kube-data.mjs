#!/usr/bin/env node
/* global console, process */
// Generates the embedded API server's Kubernetes data from a Kubernetes source tree (for example
// the one `apt-get source kubernetes` unpacks):
//
//   node scripts/gen-kube-data.mjs <kubernetes source dir>
//
// Writes packages/testkit/src/api-server/data/:
//   kube-proto.json    the protobuf schema of every built-in kind (from staging/src/k8s.io/**/generated.proto,
//                      comments dropped), with what Go's JSON encoding adds to it (JSON names, inline
//                      structs, which zero values are omitted) read from the types*.go struct tags, and
//                      the group/version/kind → message map
//   kube-openapi.json  the OpenAPI v2 definitions (api/openapi-spec/swagger.json) and the resources the
//                      paths of that document serve (scope, verbs, subresources)
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const src = process.argv[2];
if (!src) {
  console.error('usage: gen-kube-data.mjs <kubernetes source dir>');
  process.exit(2);
}
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'testing', 'api-server', 'data');
const staging = join(src, 'staging', 'src');

function walk(dir, acc = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, acc);
    else acc.push(p);
  }
  return acc;
}

const protoRoots = ['k8s.io/api', 'k8s.io/apimachinery/pkg', 'k8s.io/apiextensions-apiserver/pkg/apis', 'k8s.io/kube-aggregator/pkg/apis'];
const protoFiles = protoRoots
  .flatMap((r) => walk(join(staging, r)))
  .filter((p) => p.endsWith('/generated.proto') && !p.includes('testapigroup') && !p.includes('/testdata/'))
  .map((p) => relative(staging, p))
  .sort();

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith('/') ? target : join(staging, target));
root.loadSync(protoFiles.map((f) => join(staging, f)), { keepCase: true });
root.resolveAll();

// Go struct tags: message full name → proto field → [json name ('' for an inline struct), omitempty on
// a non-pointer].
const goFields = {};
for (const f of protoFiles) {
  const dir = join(staging, dirname(f));
  const text = readFileSync(join(staging, f), 'utf8');
  const pkg = /^package ([\w.]+);/m.exec(text)[1];
  for (const name of readdirSync(dir)) {
    if (!/^types.*\.go$/.test(name) || name.endsWith('_test.go')) continue;
    const go = readFileSync(join(dir, name), 'utf8');
    const structRe = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
    for (let m; (m = structRe.exec(go)); ) {
      const msg = `${pkg}.${m[1]}`;
      for (const line of m[2].split('\n')) {
        const fm = /^\s*(?:(\w+)\s+)?([*[\]\w.]+)\s+`([^`]*)`/.exec(line);
        if (!fm) continue;
        const type = fm[2];
        const tag = fm[3];
        const pb = /protobuf:"([^"]*)"/.exec(tag);
        const js = /json:"([^"]*)"/.exec(tag);
        if (!pb || !js) continue;
        const protoName = /name=([^,]+)/.exec(pb[1])?.[1];
        if (!protoName) continue;
        const [jsonName, ...opts] = js[1].split(',');
        const omitempty = opts.includes('omitempty');
        const entry = (goFields[msg] ??= {});
        entry[protoName] = [jsonName === protoName ? 1 : jsonName, omitempty && !type.startsWith('*')];
      }
    }
  }
}

// Compact schema: message full name → { fields: [[name, id, type, rule?, keyType?]] }.
const messages = {};
function collect(ns) {
  for (const nested of ns.nestedArray ?? []) {
    if (nested instanceof protobuf.Type) {
      const fullName = nested.fullName.slice(1);
      const go = goFields[fullName] ?? {};
      const fields = nested.fieldsArray.map((fl) => {
        const type = fl.resolvedType ? fl.resolvedType.fullName.slice(1) : fl.type;
        const rule = fl.map ? 'map' : fl.repeated ? 'rep' : '';
        const g = go[fl.name];
        const json = g === undefined || g[0] === 1 ? fl.name : g[0];
        // The zero value is omitted for an omitempty field that is not a pointer, a slice, a map or a struct.
        const zero = g !== undefined && g[1] === true && !fl.resolvedType && rule === '' ? 1 : 0;
        const row = [fl.name, fl.id, type, rule];
        if (fl.map) row.push(fl.keyType);
        else row.push('');
        row.push(json === fl.name ? 1 : json, zero);
        return row;
      });
      messages[fullName] = fields;
    }
    if (nested.nestedArray) collect(nested);
  }
}
collect(root);

// Group/version/kind → message, from the OpenAPI definitions (io.k8s.api.X ↔ k8s.io.api.X).
const swagger = JSON.parse(readFileSync(join(src, 'api', 'openapi-spec', 'swagger.json'), 'utf8'));
const gvk = {};
function protoNameOf(def) {
  return def
    .replace(/^io\.k8s\./, 'k8s.io.')
    .replace('apiextensions-apiserver', 'apiextensions_apiserver')
    .replace('kube-aggregator', 'kube_aggregator');
}
for (const [name, def] of Object.entries(swagger.definitions)) {
  for (const g of def['x-kubernetes-group-version-kind'] ?? []) {
    const p = protoNameOf(name);
    if (!messages[p]) continue;
    const key = `${g.group}/${g.version}/${g.kind}`;
    // meta/v1 kinds (Status, WatchEvent, DeleteOptions…) are listed under every group; keep the first.
    if (!gvk[key]) gvk[key] = p;
  }
}

const version = swagger.info.version;
writeFileSync(join(out, 'kube-proto.json'), `${JSON.stringify({ version, messages, gvk })}\n`);

// Resources from the paths: /api/v1/namespaces/{namespace}/pods/{name}/status …
const resources = {};
for (const [path, item] of Object.entries(swagger.paths)) {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(?:(namespaces\/\{namespace\})\/)?([a-z0-9]+)(\/\{name\})?(?:\/([a-z]+))?$/.exec(path);
  if (!m || path.includes('/watch/')) continue;
  const group = m[2] ?? '';
  const ver = m[1] ?? m[3];
  const namespaced = m[4] !== undefined;
  const plural = m[5];
  const named = m[6] !== undefined;
  const sub = m[7];
  if (plural === 'namespaces' && namespaced) continue;
  if (sub !== undefined && !named) continue;
  const key = `${group}/${ver}/${plural}`;
  const r = (resources[key] ??= { group, version: ver, plural, kind: '', namespaced: false, verbs: [], subresources: {} });
  for (const [method, op] of Object.entries(item)) {
    if (method === 'parameters') continue;
    const action = op['x-kubernetes-action'];
    const k = op['x-kubernetes-group-version-kind'];
    if (sub !== undefined) {
      const s = (r.subresources[sub] ??= { kind: k?.kind ?? '', verbs: [] });
      const verb = { post: 'create', put: 'update', patch: 'patch', get: 'get', delete: 'delete' }[method];
      if (verb && !s.verbs.includes(verb)) s.verbs.push(verb);
      continue;
    }
    if (k && r.kind === '') r.kind = k.kind;
    if (namespaced) r.namespaced = true;
    const verb = { list: 'list', watchlist: 'watch', post: 'create', get: 'get', put: 'update', patch: 'patch', delete: 'delete', deletecollection: 'deletecollection' }[action];
    if (verb === 'list' && !named) r.verbs.push('list');
    else if (verb && verb !== 'list' && !r.verbs.includes(verb)) r.verbs.push(verb);
  }
}
// watch verbs come from the /watch/ paths, which the loop skipped.
for (const path of Object.keys(swagger.paths)) {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/watch\/(?:namespaces\/\{namespace\}\/)?([a-z0-9]+)$/.exec(path);
  if (!m) continue;
  const r = resources[`${m[2] ?? ''}/${m[1] ?? m[3]}/${m[4]}`];
  if (r && !r.verbs.includes('watch')) r.verbs.push('watch');
}
const order = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const list = Object.values(resources)
  .filter((r) => r.kind !== '')
  .map((r) => ({ ...r, verbs: [...new Set(r.verbs)].sort((a, b) => order.indexOf(a) - order.indexOf(b)) }));
writeFileSync(join(out, 'kube-openapi.json'), `${JSON.stringify({ version, info: swagger.info, resources: list, definitions: swagger.definitions })}\n`);
console.log(`kube-proto.json: ${Object.keys(messages).length} messages, ${Object.keys(gvk).length} kinds; kube-openapi.json: ${list.length} resources, ${Object.keys(swagger.definitions).length} definitions`);
