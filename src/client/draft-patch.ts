import { enablePatches, Immer, type Draft, type Patch } from 'immer';

enablePatches();

/** A private immer instance: results are not frozen (the caller's object and its cache stay as they were). */
const immer = new Immer({ autoFreeze: false });

/**
 * Changes a draft of an object in place. Runs on an immer draft, so it reads and writes like plain
 * mutation (`draft.metadata.labels ??= {}`, `draft.spec.items.splice(2, 1)`, `delete draft.x`).
 * Its return value is ignored; it must be synchronous.
 */
export type Recipe<T> = (draft: Draft<T>) => void;

/** One RFC 6902 operation, as rxkube sends them (`add`, `remove`, `replace`, `test`). */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** What a recipe did to an object: its result, and the operations that turn the object into it. */
export interface DraftPatch<T> {
  /** The recipe's result (unfrozen; shares unchanged parts with the input). */
  readonly result: T;
  /** RFC 6902 operations from the input to `result` as JSON; empty when the recipe changed nothing. */
  readonly operations: readonly JsonPatchOperation[];
}

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

/** A JSON pointer (RFC 6901) from reference tokens: `~` → `~0`, `/` → `~1`. */
export function jsonPointer(tokens: readonly (string | number)[]): string {
  let out = '';
  for (const t of tokens) out += `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  return out;
}

/**
 * Runs `recipe` on an immer draft of `base` (`produceWithPatches`) and turns immer's patches into
 * RFC 6902 operations on the JSON form of `base`:
 * - path segments are escaped (`example.com/x` → `example.com~1x`);
 * - array index operations are kept in immer's order (replace in place, `add` at the end, `remove`
 *   from the end); an older immer's `replace` of an array's `length` becomes `remove`s from the end;
 * - a value of `undefined` means "absent", as in JSON: setting a field to `undefined` removes it;
 * - a `replace` of an object or array by another is narrowed to the operations inside it unless
 *   nothing of it is kept (`draft.status = computed` sends only the fields that differ);
 * - nothing is emitted for a value set to what it already was.
 * The operations are checked by applying them (RFC 6902 rules) to a copy of `base`: the result must
 * equal the recipe's. They are compared with a structural diff of `base` and the result (objects
 * key by key; arrays by common prefix and suffix, so a `splice` in the middle of a list is one
 * `remove` or `add` where immer shifts every later element with `replace`s); the shorter is
 * used (fewer operations), immer's on a tie. Should immer's patches ever not reproduce the result, the diff is used,
 * so what is sent always yields exactly the recipe's result.
 */
export function draftPatch<T extends object>(base: T, recipe: Recipe<T>): DraftPatch<T> {
  const [result, patches] = immer.produceWithPatches(base, (draft: Draft<T>) => {
    const returned: unknown = recipe(draft);
    if (isThenable(returned)) {
      returned.then(undefined, () => undefined);
      throw new TypeError('the recipe must be synchronous: it returned a promise');
    }
  });
  if (patches.length === 0) return { result, operations: [] };
  const before = toJson(base) ?? null;
  const after = toJson(result) ?? null;
  if (deepEqual(before, after)) return { result, operations: [] };
  const fromPatches = operationsFromPatches(before, patches);
  const fromImmer = fromPatches !== undefined && deepEqual(fromPatches.doc, after) ? fromPatches.operations : undefined;
  const diffed = jsonDiff(before, after);
  if (fromImmer !== undefined && fromImmer.length <= diffed.length) return { result, operations: fromImmer };
  const check = new PatchBuilder(before);
  for (const op of diffed) check.emit(op);
  if (!deepEqual(check.doc, after)) throw new Error('draftPatch: the computed JSON patch does not reproduce the recipe result');
  return { result, operations: diffed };
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

/** The JSON form of a value (`undefined` when JSON has none: `undefined`, functions). */
function toJson(value: unknown): Json | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text === undefined ? undefined : (JSON.parse(text) as Json);
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
  return true;
}

const INDEX = /^(0|[1-9][0-9]*)$/;

/** Thrown by {@link PatchBuilder.emit} when an operation does not apply (RFC 6902 rules). */
class NotApplicable extends Error {}

/** A JSON document and the operations applied to it so far, with RFC 6902's rules. */
class PatchBuilder {
  readonly operations: JsonPatchOperation[] = [];
  private readonly root: { doc: Json };

  constructor(doc: Json) {
    this.root = { doc: structuredClone(doc) };
  }

  get doc(): Json {
    return this.root.doc;
  }

  /** The container at `tokens`, or undefined. */
  lookup(tokens: readonly string[]): Json | undefined {
    let cur: Json | undefined = this.root.doc;
    for (const t of tokens) {
      if (Array.isArray(cur)) cur = INDEX.test(t) ? cur[Number(t)] : undefined;
      else if (isObject(cur)) cur = Object.hasOwn(cur, t) ? cur[t] : undefined;
      else return undefined;
    }
    return cur;
  }

  /** Applies `op` to the document and records it; throws {@link NotApplicable} when RFC 6902 refuses it. */
  emit(op: JsonPatchOperation): void {
    const tokens = parsePointer(op.path);
    if (tokens.length === 0) {
      if (op.op === 'remove' || op.op === 'test') throw new NotApplicable(op.op);
      this.root.doc = structuredClone(op.value as Json);
      this.operations.push(op);
      return;
    }
    const parent = this.lookup(tokens.slice(0, -1));
    const key = tokens[tokens.length - 1] ?? '';
    const value = op.op === 'remove' ? null : structuredClone(op.value as Json);
    if (Array.isArray(parent)) {
      const i = key === '-' && op.op === 'add' ? parent.length : INDEX.test(key) ? Number(key) : -1;
      if (i < 0 || (op.op === 'add' ? i > parent.length : i >= parent.length)) throw new NotApplicable(op.path);
      if (op.op === 'add') parent.splice(i, 0, value);
      else if (op.op === 'replace') parent[i] = value;
      else if (op.op === 'remove') parent.splice(i, 1);
    } else if (isObject(parent)) {
      if (op.op !== 'add' && !Object.hasOwn(parent, key)) throw new NotApplicable(op.path);
      if (op.op === 'remove') delete parent[key];
      else if (op.op !== 'test') parent[key] = value;
    } else {
      throw new NotApplicable(op.path);
    }
    this.operations.push(op);
  }

  /** Emits what turns the value at `tokens` (`old`) into `value`: nothing, a `replace`, or the operations inside it. */
  change(tokens: readonly string[], old: Json, value: Json): void {
    for (const op of diff(tokens, old, value)) this.emit(op);
  }
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * immer's patches as RFC 6902 operations, applied to a copy of `base` (JSON) as they are made,
 * with the document they yield; undefined when a patch does not fit the document (the caller
 * then diffs instead). Exported for tests.
 */
export function operationsFromPatches(base: Json, patches: readonly Patch[]): { operations: JsonPatchOperation[]; doc: Json } | undefined {
  const b = new PatchBuilder(base);
  try {
    for (const p of patches) {
      const tokens = p.path.map(String);
      if (tokens.length === 0) {
        b.change([], b.doc, toJson(p.value) ?? null);
        continue;
      }
      const parentTokens = tokens.slice(0, -1);
      const key = tokens[tokens.length - 1] ?? '';
      const parent = b.lookup(parentTokens);
      if (Array.isArray(parent)) {
        if (key === 'length') {
          // immer before v10: truncation (or growth) as a `replace` of `length`.
          const n = Number(p.value);
          if (p.op !== 'replace' || !Number.isInteger(n) || n < 0) return undefined;
          while (parent.length > n) b.emit({ op: 'remove', path: jsonPointer([...parentTokens, parent.length - 1]) });
          while (parent.length < n) b.emit({ op: 'add', path: jsonPointer([...parentTokens, parent.length]), value: null });
          continue;
        }
        if (!INDEX.test(key)) return undefined;
        const i = Number(key);
        const path = jsonPointer(tokens);
        if (p.op === 'remove') b.emit({ op: 'remove', path });
        else if (p.op === 'add') b.emit({ op: 'add', path, value: toJson(p.value) ?? null });
        else if (i < parent.length) b.change(tokens, parent[i] ?? null, toJson(p.value) ?? null);
        else return undefined;
      } else if (isObject(parent)) {
        const has = Object.hasOwn(parent, key);
        const value = p.op === 'remove' ? undefined : toJson(p.value);
        const path = jsonPointer(tokens);
        if (value === undefined) {
          if (has) b.emit({ op: 'remove', path });
        } else if (has) {
          b.change(tokens, parent[key] ?? null, value);
        } else {
          b.emit({ op: 'add', path, value });
        }
      } else {
        return undefined;
      }
    }
  } catch (err) {
    if (err instanceof NotApplicable) return undefined;
    throw err;
  }
  return { operations: b.operations, doc: b.doc };
}

/** RFC 6902 operations turning the JSON document `a` into `b` (the structural diff {@link draftPatch} falls back to). */
export function jsonDiff(a: Json, b: Json): JsonPatchOperation[] {
  return diff([], a, b);
}

/**
 * Operations turning `a` (at `tokens`) into `b`, applied in order: objects key by key, arrays by
 * common prefix and suffix, then element-wise in the middle, `remove`s from the end and `add`s.
 * A container of which nothing is kept (every member removed, added or replaced whole) is
 * replaced whole.
 */
function diff(tokens: readonly string[], a: Json, b: Json): JsonPatchOperation[] {
  return diffOf(tokens, a, b).ops;
}

function diffOf(tokens: readonly string[], a: Json, b: Json): { ops: JsonPatchOperation[]; whole: boolean } {
  if (deepEqual(a, b)) return { ops: [], whole: false };
  const replace = { ops: [{ op: 'replace', path: jsonPointer(tokens), value: b } as const], whole: true };
  const ops: JsonPatchOperation[] = [];
  let kept = false;
  const child = (key: string, x: Json, y: Json): void => {
    const d = diffOf([...tokens, key], x, y);
    if (!d.whole) kept = true;
    ops.push(...d.ops);
  };
  if (Array.isArray(a) && Array.isArray(b)) {
    const min = Math.min(a.length, b.length);
    let p = 0;
    while (p < min && deepEqual(a[p], b[p])) p++;
    let s = 0;
    while (s < min - p && deepEqual(a[a.length - 1 - s], b[b.length - 1 - s])) s++;
    if (p > 0 || s > 0) kept = true;
    const oldMid = a.length - p - s;
    const newMid = b.length - p - s;
    const common = Math.min(oldMid, newMid);
    for (let i = p; i < p + common; i++) child(String(i), a[i] ?? null, b[i] ?? null);
    for (let i = p + oldMid - 1; i >= p + common; i--) ops.push({ op: 'remove', path: jsonPointer([...tokens, i]) });
    for (let i = p + common; i < p + newMid; i++) ops.push({ op: 'add', path: jsonPointer([...tokens, i]), value: b[i] ?? null });
  } else if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) if (!Object.hasOwn(b, k)) ops.push({ op: 'remove', path: jsonPointer([...tokens, k]) });
    for (const [k, v] of Object.entries(b)) {
      if (Object.hasOwn(a, k)) child(k, a[k] ?? null, v);
      else ops.push({ op: 'add', path: jsonPointer([...tokens, k]), value: v });
    }
  } else {
    return replace;
  }
  return kept || tokens.length === 0 ? { ops, whole: false } : replace;
}
