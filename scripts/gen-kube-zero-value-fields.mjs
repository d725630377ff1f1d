#!/usr/bin/env node
/* global console, process */
// Generates packages/testkit/src/api-server/data/kube-zero-value-fields.json from a Kubernetes source
// tree (the one gen-kube-data.mjs reads) and the OpenAPI definitions already in data/:
//
//   node scripts/gen-kube-zero-value-fields.mjs <kubernetes source dir>
//
// For every OpenAPI definition of a Go struct, the JSON names of the fields Go's JSON encoding
// writes even in the struct's zero value: those without `omitempty` (a PodSpec's `containers`, as
// null), and structs held by value (not a pointer, slice or map; a definition of their own in the
// OpenAPI document), which `omitempty` does not leave out: `metadata`, a Pod's `spec`, a
// Deployment's `spec.template` and `spec.strategy`, a container's `resources`, a template's
// `creationTimestamp`. The embedded API server's field ownership needs them: a field the zero
// value of its parent has gets no path of its own.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = process.argv[2];
if (!src) {
  console.error('usage: gen-kube-zero-value-fields.mjs <kubernetes source dir>');
  process.exit(2);
}
const data = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'testkit', 'src', 'api-server', 'data');
const definitions = JSON.parse(readFileSync(join(data, 'kube-openapi.json'), 'utf8')).definitions;
const staging = join(src, 'staging', 'src');

// Go package directory → struct name → JSON name → Go type.
const packages = new Map();
function structsOf(dir) {
  let structs = packages.get(dir);
  if (structs !== undefined) return structs;
  structs = new Map();
  packages.set(dir, structs);
  if (!existsSync(dir)) return structs;
  for (const name of readdirSync(dir)) {
    if (!/^types.*\.go$/.test(name) || name.endsWith('_test.go')) continue;
    const go = readFileSync(join(dir, name), 'utf8');
    const structRe = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
    for (let m; (m = structRe.exec(go)); ) {
      const fields = new Map();
      for (const line of m[2].split('\n')) {
        const fm = /^\s*(?:(\w+)\s+)?([*[\]\w.]+)\s+`([^`]*)`/.exec(line);
        if (!fm) continue;
        const js = /json:"([^"]*)"/.exec(fm[3]);
        const jsonName = js?.[1].split(',')[0];
        if (!jsonName || jsonName === '-') continue;
        fields.set(jsonName, { goType: fm[2], omitempty: js[1].split(',').includes('omitempty') });
      }
      structs.set(m[1], fields);
    }
  }
  return structs;
}

const refName = (s) => (typeof s?.$ref === 'string' ? s.$ref.slice('#/definitions/'.length) : undefined);
const out = {};
for (const [name, def] of Object.entries(definitions)) {
  if (!def.properties || !name.startsWith('io.k8s.')) continue;
  const parts = name.slice('io.k8s.'.length).split('.');
  const struct = parts.pop();
  const fields = structsOf(join(staging, 'k8s.io', ...parts)).get(struct);
  if (fields === undefined) continue;
  const inZeroValue = [];
  for (const [key, prop] of Object.entries(def.properties)) {
    const field = fields.get(key);
    if (field === undefined) continue;
    const { goType, omitempty } = field;
    // A struct (a definition of its own) held by value: written whatever its tags say.
    const struct = definitions[refName(prop)] !== undefined && !goType.startsWith('*') && !goType.startsWith('[') && !goType.startsWith('map[');
    if (!omitempty || struct) inZeroValue.push(key);
  }
  if (inZeroValue.length > 0) out[name] = inZeroValue.sort();
}
const sorted = Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
writeFileSync(join(data, 'kube-zero-value-fields.json'), `${JSON.stringify(sorted)}\n`);
console.log(`${Object.keys(sorted).length} definitions`);
