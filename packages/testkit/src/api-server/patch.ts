import { badRequest, failure, StatusError } from './status-error.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v) as Json;
  }
  return out;
}

interface JsonPatchOp {
  readonly op?: unknown;
  readonly path?: unknown;
  readonly from?: unknown;
  readonly value?: unknown;
}

function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
    throw badRequest(`the server rejected our request due to an error in our request: invalid JSON pointer "${String(path)}"`);
  }
  return path === '' ? [] : path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function unprocessable(message: string): StatusError {
  return new StatusError(failure(422, 'Invalid', message));
}

function parentOf(doc: Json, parts: string[], path: string): { parent: JsonObject | Json[]; last: string } {
  let cur: Json = doc;
  for (const p of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(p)] ?? null;
    else if (isObject(cur)) cur = cur[p] ?? null;
    else cur = null;
    if (cur === null) throw unprocessable(`doc is missing path: "${path}"`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw unprocessable(`doc is missing path: "${path}"`);
  return { parent: cur, last: parts[parts.length - 1] ?? '' };
}

function getAt(doc: Json, path: string): Json {
  let cur: Json = doc;
  for (const p of pointer(path)) {
    if (Array.isArray(cur) && /^\d+$/.test(p) && Number(p) < cur.length) cur = cur[Number(p)] ?? null;
    else if (isObject(cur) && Object.prototype.hasOwnProperty.call(cur, p)) cur = cur[p] ?? null;
    else throw unprocessable(`doc is missing path: "${path}"`);
  }
  return cur;
}

function removeAt(doc: Json, path: string): Json {
  const parts = pointer(path);
  const { parent, last } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!/^\d+$/.test(last) || i >= parent.length) throw unprocessable(`unable to remove nonexistent key: ${last}: missing value`);
    return parent.splice(i, 1)[0] ?? null;
  }
  if (!Object.prototype.hasOwnProperty.call(parent, last)) throw unprocessable(`unable to remove nonexistent key: ${last}: missing value`);
  const old = parent[last] ?? null;
  delete parent[last];
  return old;
}

function addAt(doc: Json, path: string, value: Json, replace: boolean): Json {
  const parts = pointer(path);
  if (parts.length === 0) return value;
  const { parent, last } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    if (last === '-' && !replace) parent.push(value);
    else {
      const i = Number(last);
      if (!/^\d+$/.test(last) || i > parent.length || (replace && i >= parent.length)) throw unprocessable(`index out of range: ${path}`);
      parent.splice(i, replace ? 1 : 0, value);
    }
  } else {
    if (replace && !Object.prototype.hasOwnProperty.call(parent, last)) throw unprocessable(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    parent[last] = value;
  }
  return doc;
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test). */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = structuredClone(target) as Json;
  for (const raw of ops as JsonPatchOp[]) {
    if (!isObject(raw)) throw badRequest('invalid JSON patch operation');
    const path = typeof raw.path === 'string' ? raw.path : '';
    const value = structuredClone(raw.value ?? null) as Json;
    switch (raw.op) {
      case 'add': doc = addAt(doc, path, value, false); break;
      case 'replace': doc = addAt(doc, path, value, true); break;
      case 'remove': removeAt(doc, path); break;
      case 'move': {
        const v = removeAt(doc, typeof raw.from === 'string' ? raw.from : '');
        doc = addAt(doc, path, v, false);
        break;
      }
      case 'copy': doc = addAt(doc, path, structuredClone(getAt(doc, typeof raw.from === 'string' ? raw.from : '')), false); break;
      case 'test':
        if (JSON.stringify(getAt(doc, path)) !== JSON.stringify(value)) throw unprocessable(`testing value ${path} failed: test failed`);
        break;
      default: throw badRequest(`Unexpected kind: ${String(raw.op)}`);
    }
  }
  return doc;
}

/**
 * Merge keys of lists that strategic merge patch merges element-wise (by field name, as in the
 * built-in types' `patchMergeKey` tags). Other lists are replaced, except the primitive lists in
 * MERGED_PRIMITIVE_LISTS, which are unioned. `ports` and `addresses` depend on where they are
 * ({@link mergeKeyOf}).
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  taints: 'key',
};

const CONTAINER_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/**
 * The merge key of the list `field` inside the field `parent` (the field holding the object the
 * list is in; list items do not count): a container's `ports` by `containerPort`, a Service's
 * `spec.ports` by `port`, a Node's `status.addresses` by `type`; the `ports` and `addresses` of
 * other types (a NetworkPolicy rule's, an Endpoints subset's) have none and are replaced, as in
 * kube-apiserver.
 */
function mergeKeyOf(field: string, parent: string | undefined): string | undefined {
  if (field === 'ports') return parent !== undefined && CONTAINER_LISTS.has(parent) ? 'containerPort' : parent === 'spec' ? 'port' : undefined;
  if (field === 'addresses') return parent === 'status' ? 'type' : undefined;
  return Object.hasOwn(MERGE_KEYS, field) ? MERGE_KEYS[field] : undefined;
}

const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

/** The first position of each identity in `ids`. */
function firstPositions(ids: readonly string[]): Map<string, number> {
  const at = new Map<string, number>();
  ids.forEach((id, i) => {
    if (!at.has(id)) at.set(id, i);
  });
  return at;
}

/**
 * The order kube-apiserver gives a merged list (apimachinery's `normalizeElementOrder`): the items
 * the patch names, in the patch's order, and the items only the server had, in the original order,
 * interleaved so that a server-only item goes before a patch item only when both were in the
 * original and it came first there. So a new item goes before the server-only items that follow it
 * (`[A]` patched with `[B]` is `[B, A]`), and items already in place keep their places.
 */
function kubeListOrder(merged: readonly Json[], patchIds: readonly string[], originalIds: readonly string[], idOf: (x: Json) => string): Json[] {
  const inPatch = firstPositions(patchIds);
  const inOriginal = firstPositions(originalIds);
  const patchItems = merged.filter((x) => inPatch.has(idOf(x))).sort((a, b) => (inPatch.get(idOf(a)) ?? 0) - (inPatch.get(idOf(b)) ?? 0));
  const serverOnly = merged.filter((x) => !inPatch.has(idOf(x)));
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (j >= patchItems.length) out.push(serverOnly[i++] as Json);
    else if (i >= serverOnly.length) out.push(patchItems[j++] as Json);
    else {
      const left = inOriginal.get(idOf(serverOnly[i] as Json));
      const right = inOriginal.get(idOf(patchItems[j] as Json));
      if (left !== undefined && right !== undefined && left < right) out.push(serverOnly[i++] as Json);
      else out.push(patchItems[j++] as Json);
    }
  }
  return out;
}

function smpList(field: string, parent: string | undefined, target: Json[] | undefined, patch: Json[]): Json[] {
  const key = mergeKeyOf(field, parent);
  if (MERGED_PRIMITIVE_LISTS.has(field)) {
    const original = target ?? [];
    const merged = [...original];
    for (const v of patch) if (!merged.some((x) => JSON.stringify(x) === JSON.stringify(v))) merged.push(v);
    const id = (x: Json) => JSON.stringify(x);
    return kubeListOrder(merged, patch.map(id), original.map(id), id);
  }
  if (key === undefined || !patch.every(isObject)) return patch.filter((v) => !(isObject(v) && v['$patch'] !== undefined));
  if (patch.some((p) => isObject(p) && p['$patch'] === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace'));
  }
  const id = (x: Json) => JSON.stringify((isObject(x) ? x[key] : undefined) ?? null);
  const deleted = new Set((patch as JsonObject[]).filter((p) => p['$patch'] === 'delete').map(id));
  const original = (target ?? []).filter((x) => !deleted.has(id(x)));
  const merging = (patch as JsonObject[]).filter((p) => p['$patch'] !== 'delete');
  const out: Json[] = [...original];
  for (const p of merging) {
    const i = out.findIndex((x) => id(x) === id(p));
    if (i >= 0) out[i] = strategicMergePatch(out[i], p, field) as Json;
    else out.push(strategicMergePatch({}, p, field) as Json);
  }
  return kubeListOrder(out, merging.map(id), original.map(id), id);
}

/**
 * Strategic merge patch, a subset: objects merge like a JSON merge patch; lists known to have a
 * merge key (containers by name, env by name, conditions by type, …) merge element by element;
 * `$patch: replace | delete` directives on maps and list elements; `$deleteFromPrimitiveList/x`;
 * `$setElementOrder` is accepted and ignored. Other lists are replaced. `field`: the name of the
 * field whose value `target` is (omitted at the root), for the merge keys that depend on where a
 * list is.
 */
export function strategicMergePatch(target: unknown, patch: unknown, field?: string): unknown {
  if (!isObject(patch)) return patch;
  if (patch['$patch'] === 'replace') {
    const rest: JsonObject = { ...patch };
    delete rest['$patch'];
    return rest;
  }
  if (patch['$patch'] === 'delete') return null;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) out[field] = cur.filter((x) => !v.some((d) => JSON.stringify(d) === JSON.stringify(x)));
      continue;
    }
    if (v === null) delete out[k];
    else if (Array.isArray(v)) {
      const cur = out[k];
      out[k] = smpList(k, field, Array.isArray(cur) ? cur : undefined, v);
    } else if (isObject(v)) {
      const merged = strategicMergePatch(out[k], v, k) as Json;
      if (merged === null) delete out[k];
      else out[k] = merged;
    } else out[k] = v;
  }
  return out;
}
