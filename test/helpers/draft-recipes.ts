/**
 * Random JSON documents and random recipes over them, for the draft-edit property tests (unit and
 * e2e): set, delete, nested creation, push, unshift, insert and splice in the middle, truncation,
 * reverse, `undefined`, on keys with `/` and `~`.
 */
import fc from 'fast-check';
import type { Json, Recipe } from '../../src/client/draft-patch.js';

/** Object keys: plain, numeric-looking, empty, and with the characters JSON pointers escape. */
export const KEYS = ['a', 'b', 'c', '0', '', 'example.com/x', 'a~b', '~1', '/', 'x/~0y'];

export type Action =
  | { readonly kind: 'set' | 'nested' | 'push' | 'unshift' | 'insert'; readonly path: number[]; readonly key: string; readonly index: number; readonly value: Json }
  | { readonly kind: 'delete' | 'truncate' | 'splice' | 'reverse' | 'undefine'; readonly path: number[]; readonly key: string; readonly index: number; readonly count: number };

export interface DocumentArbs {
  readonly json: fc.Arbitrary<Json>;
  readonly objectDoc: fc.Arbitrary<Record<string, Json>>;
  readonly actionArb: fc.Arbitrary<Action>;
}

/**
 * Documents and actions. `nulls: false` leaves out `null` and non-integer numbers (and setting an
 * array element to `undefined`, which JSON makes `null`), for servers that prune nulls.
 */
export function documentArbs(options: { readonly nulls?: boolean; readonly keys?: readonly string[] } = {}): DocumentArbs {
  const nulls = options.nulls ?? true;
  const key = fc.constantFrom(...(options.keys ?? KEYS));
  const leaves: fc.Arbitrary<Json>[] = [fc.string({ maxLength: 6 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean()];
  if (nulls) leaves.push(fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }));
  const leaf = fc.oneof(...leaves);
  const { json } = fc.letrec<{ json: Json; obj: Json; arr: Json }>((tie) => ({
    json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('obj'), tie('arr')),
    obj: fc.dictionary(key, tie('json'), { maxKeys: 4 }),
    arr: fc.array(tie('json'), { maxLength: 6 }),
  }));
  const objectDoc = fc.dictionary(key, json, { maxKeys: 5 });
  type Removal = 'delete' | 'truncate' | 'splice' | 'reverse' | 'undefine';
  const removals: Removal[] = ['delete', 'truncate', 'splice', 'reverse', ...(nulls ? (['undefine'] as const) : [])];
  const actionArb: fc.Arbitrary<Action> = fc.oneof(
    fc.record({ kind: fc.constantFrom('set', 'nested', 'push', 'unshift', 'insert'), path: fc.array(fc.nat(), { maxLength: 3 }), key, index: fc.nat(), value: json }),
    fc.record({ kind: fc.constantFrom(...removals), path: fc.array(fc.nat(), { maxLength: 3 }), key, index: fc.nat(), count: fc.nat({ max: 3 }) }),
  );
  return { json, objectDoc, actionArb };
}

type Node = Record<string, unknown> | unknown[];
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null;

/**
 * Runs one action on a draft container chosen by `path` (indexes into its container children).
 * Values go in as fresh copies: a recipe must not mutate what it captured (it runs again on a
 * conflict), and a plain value put into a draft is not a draft.
 */
export function act(root: Node, action: Action): void {
  const a = 'value' in action ? { ...action, value: structuredClone(action.value) } : action;
  let cur: Node = root;
  for (const seed of a.path) {
    const kids = Object.entries(cur).filter(([, v]) => isNode(v));
    if (kids.length === 0) break;
    cur = (kids[seed % kids.length] as [string, Node])[1];
  }
  if (Array.isArray(cur)) {
    const n = cur.length;
    switch (a.kind) {
      case 'set': if (n > 0) cur[a.index % n] = a.value; else cur.push(a.value); break;
      case 'nested': cur.push({ [a.key]: { [a.key]: [a.value] } }); break;
      case 'push': cur.push(a.value); break;
      case 'unshift': cur.unshift(a.value); break;
      case 'insert': cur.splice(a.index % (n + 1), 0, a.value, structuredClone(a.value)); break; // in the middle
      case 'delete': case 'splice': if (n > 0) cur.splice(a.index % n, a.count); break;
      case 'truncate': cur.length = a.index % (n + 1); break;
      case 'reverse': cur.reverse(); break;
      case 'undefine': if (n > 0) cur[a.index % n] = undefined; break;
    }
    return;
  }
  const here = cur[a.key];
  switch (a.kind) {
    case 'set': cur[a.key] = a.value; break;
    case 'nested': {
      const inner = isNode(here) && !Array.isArray(here) ? here : (cur[a.key] = {});
      (inner as Record<string, unknown>)['deep/er'] = { '~': [a.value] };
      break;
    }
    case 'push': case 'unshift': case 'insert':
      if (Array.isArray(here)) {
        if (a.kind === 'push') here.push(a.value);
        else if (a.kind === 'unshift') here.unshift(a.value);
        else here.splice(a.index % (here.length + 1), 0, a.value);
      } else cur[a.key] = [a.value];
      break;
    case 'delete': delete cur[a.key]; break;
    case 'truncate': if (Array.isArray(here)) here.length = a.index % (here.length + 1); break;
    case 'splice': if (Array.isArray(here) && here.length > 0) here.splice(a.index % here.length, a.count); break;
    case 'reverse': if (Array.isArray(here)) here.reverse(); break;
    case 'undefine': cur[a.key] = undefined; break;
  }
}

/** A recipe running `actions` on `draft.spec` (made an object first when it is not one). */
export function recipeOf<T extends { spec?: Json }>(actions: readonly Action[]): Recipe<T> {
  return (draft) => {
    const d = draft as unknown as { spec?: unknown };
    if (!isNode(d.spec)) d.spec = {};
    for (const a of actions) act(d.spec as Node, a);
  };
}
