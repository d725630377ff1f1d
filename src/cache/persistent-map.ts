/**
 * An immutable, structurally shared map from string keys to values: a hash array mapped trie
 * (HAMT, 32-way branches on 5-bit slices of a 32-bit key hash). Changing one key copies the
 * O(log32 n) nodes on its path and shares everything else with the previous version, so keeping
 * every version of a 100k-entry map costs memory only for what changed.
 *
 * A {@link PersistentMapBuilder} applies many changes in place to nodes it created itself (a
 * "transient"): a batch of k changes allocates at most one path per touched node, and `build()`
 * seals the result. That is what `state$` does per batch of cache changes.
 */

/** Marks the nodes a builder may still mutate; sealed when the builder builds. */
interface Owner {
  sealed: boolean;
}

class Leaf<V> {
  constructor(
    readonly hash: number,
    readonly key: string,
    readonly value: V,
  ) {}
}

class Collision<V> {
  constructor(
    readonly owner: Owner | undefined,
    readonly hash: number,
    public leaves: Leaf<V>[],
  ) {}
}

class Branch<V> {
  constructor(
    readonly owner: Owner | undefined,
    public bitmap: number,
    public children: Array<Node<V>>,
  ) {}
}

type Node<V> = Leaf<V> | Collision<V> | Branch<V>;

const BITS = 5;
const MASK = 31;

/** FNV-1a over UTF-16 code units (exported for tests). */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

const owns = (node: Branch<unknown> | Collision<unknown>, owner: Owner | undefined): boolean =>
  owner !== undefined && node.owner === owner && !owner.sealed;

/** What a write did, so the caller can keep `size`. */
interface Effect {
  added: boolean;
  removed: boolean;
  /** Set by `setIn` when the key already held exactly that value. */
  same: boolean;
}

/** A branch holding `a` (a leaf or collision) and leaf `b`, whose hashes differ. */
function mergeNodes<V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, shift: number, owner: Owner | undefined): Node<V> {
  if (a.hash === b.hash) {
    const leaves = a instanceof Leaf ? [a, b] : [...a.leaves, b];
    return new Collision(owner, b.hash, leaves);
  }
  const fa = (a.hash >>> shift) & MASK;
  const fb = (b.hash >>> shift) & MASK;
  if (fa === fb) return new Branch(owner, 1 << fa, [mergeNodes(a, b, shift + BITS, owner)]);
  return new Branch(owner, (1 << fa) | (1 << fb), fa < fb ? [a, b] : [b, a]);
}

function setIn<V>(node: Branch<V>, shift: number, leaf: Leaf<V>, owner: Owner | undefined, effect: Effect): Branch<V> {
  const bit = 1 << ((leaf.hash >>> shift) & MASK);
  const idx = popcount(node.bitmap & (bit - 1));
  if ((node.bitmap & bit) === 0) {
    effect.added = true;
    if (owns(node, owner)) {
      node.children.splice(idx, 0, leaf);
      node.bitmap |= bit;
      return node;
    }
    const children = node.children.slice();
    children.splice(idx, 0, leaf);
    return new Branch(owner, node.bitmap | bit, children);
  }
  const child = node.children[idx] as Node<V>;
  let next: Node<V>;
  if (child instanceof Branch) next = setIn(child, shift + BITS, leaf, owner, effect);
  else if (child instanceof Leaf) {
    if (child.key === leaf.key) {
      if (Object.is(child.value, leaf.value)) {
        effect.same = true;
        return node;
      }
      next = leaf;
    } else {
      effect.added = true;
      next = mergeNodes(child, leaf, shift + BITS, owner);
    }
  } else if (child.hash !== leaf.hash) {
    effect.added = true;
    next = mergeNodes(child, leaf, shift + BITS, owner);
  } else {
    const i = child.leaves.findIndex((l) => l.key === leaf.key);
    if (i >= 0 && Object.is((child.leaves[i] as Leaf<V>).value, leaf.value)) {
      effect.same = true;
      return node;
    }
    if (i < 0) effect.added = true;
    const leaves = owns(child, owner) ? child.leaves : child.leaves.slice();
    if (i < 0) leaves.push(leaf);
    else leaves[i] = leaf;
    next = leaves === child.leaves ? child : new Collision(owner, child.hash, leaves);
  }
  if (next === child) return node;
  if (owns(node, owner)) {
    node.children[idx] = next;
    return node;
  }
  const children = node.children.slice();
  children[idx] = next;
  return new Branch(owner, node.bitmap, children);
}

/**
 * Removes `key`; returns the new node, `undefined` when it became empty, or a single leaf or
 * collision (below the root) for the parent to pull up.
 */
function deleteIn<V>(
  node: Branch<V>,
  shift: number,
  hash: number,
  key: string,
  owner: Owner | undefined,
  effect: Effect,
): Node<V> | undefined {
  const bit = 1 << ((hash >>> shift) & MASK);
  if ((node.bitmap & bit) === 0) return node;
  const idx = popcount(node.bitmap & (bit - 1));
  const child = node.children[idx] as Node<V>;
  let next: Node<V> | undefined;
  if (child instanceof Branch) next = deleteIn(child, shift + BITS, hash, key, owner, effect);
  else if (child instanceof Leaf) {
    if (child.key !== key) return node;
    next = undefined;
    effect.removed = true;
  } else {
    const i = child.hash === hash ? child.leaves.findIndex((l) => l.key === key) : -1;
    if (i < 0) return node;
    effect.removed = true;
    const leaves = child.leaves.filter((_, j) => j !== i);
    next = leaves.length === 1 ? (leaves[0] as Leaf<V>) : new Collision(owner, child.hash, leaves);
  }
  if (next === child) return node;
  if (next === undefined) {
    const bitmap = node.bitmap & ~bit;
    if (bitmap === 0) return undefined;
    const children = owns(node, owner) ? node.children : node.children.slice();
    children.splice(idx, 1);
    // A lone leaf or collision moves up to where its hash prefix is unique (not the root: shift 0).
    if (shift > 0 && children.length === 1 && !((children[0] as Node<V>) instanceof Branch)) return children[0];
    if (children === node.children) {
      node.bitmap = bitmap;
      return node;
    }
    return new Branch(owner, bitmap, children);
  }
  if (shift > 0 && node.children.length === 1 && !(next instanceof Branch)) return next;
  if (owns(node, owner)) {
    node.children[idx] = next;
    return node;
  }
  const children = node.children.slice();
  children[idx] = next;
  return new Branch(owner, node.bitmap, children);
}

function getIn<V>(root: Branch<V>, key: string): Leaf<V> | undefined {
  const hash = hashKey(key);
  let node: Node<V> = root;
  let shift = 0;
  for (;;) {
    if (node instanceof Branch) {
      const bit = 1 << ((hash >>> shift) & MASK);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.children[popcount(node.bitmap & (bit - 1))] as Node<V>;
      shift += BITS;
    } else if (node instanceof Leaf) {
      return node.key === key ? node : undefined;
    } else {
      return node.hash === hash ? node.leaves.find((l) => l.key === key) : undefined;
    }
  }
}

function forEachLeaf<V>(node: Node<V>, fn: (leaf: Leaf<V>) => void): void {
  if (node instanceof Leaf) fn(node);
  else if (node instanceof Collision) for (const l of node.leaves) fn(l);
  else for (const c of node.children) forEachLeaf(c, fn);
}

function* leaves<V>(root: Branch<V>): Generator<Leaf<V>, undefined, unknown> {
  const stack: Array<Node<V>> = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node<V>;
    if (node instanceof Leaf) yield node;
    else if (node instanceof Collision) yield* node.leaves;
    else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as Node<V>);
  }
  return undefined;
}

/** One key whose value differs between two versions: `before` absent → added, `after` absent → deleted. */
export interface MapChange<V> {
  readonly key: string;
  readonly before: V | undefined;
  readonly after: V | undefined;
}

/** Reports every difference between two subtrees at the same position; shared subtrees are skipped. */
function diffNodes<V>(a: Node<V> | undefined, b: Node<V> | undefined, shift: number, out: MapChange<V>[]): void {
  if (a === b) return;
  if (a instanceof Branch && b instanceof Branch) {
    let bits = a.bitmap | b.bitmap;
    while (bits !== 0) {
      const bit = bits & -bits;
      bits ^= bit;
      const ca = (a.bitmap & bit) === 0 ? undefined : a.children[popcount(a.bitmap & (bit - 1))];
      const cb = (b.bitmap & bit) === 0 ? undefined : b.children[popcount(b.bitmap & (bit - 1))];
      diffNodes(ca, cb, shift + BITS, out);
    }
    return;
  }
  // Different shapes at one position: only happens where that prefix changed, so both sides are small
  // or every entry on the larger side but one is a difference.
  const before = new Map<string, V>();
  if (a !== undefined) forEachLeaf(a, (l) => before.set(l.key, l.value));
  if (b !== undefined) {
    forEachLeaf(b, (l) => {
      if (!before.has(l.key)) out.push({ key: l.key, before: undefined, after: l.value });
      else {
        const old = before.get(l.key) as V;
        before.delete(l.key);
        if (!Object.is(old, l.value)) out.push({ key: l.key, before: old, after: l.value });
      }
    });
  }
  for (const [key, value] of before) out.push({ key, before: value, after: undefined });
}

const EMPTY_ROOT = new Branch<never>(undefined, 0, []);

/**
 * An immutable map (see the module comment). Reads are O(log32 n); `set`/`delete` return a new
 * map sharing all untouched nodes; iteration order is the hash order (stable for a given content,
 * not insertion order). {@link PersistentMap.diff} finds the differences between two versions in
 * time proportional to what changed.
 */
export class PersistentMap<V> implements ReadonlyMap<string, V> {
  private static readonly EMPTY = new PersistentMap<never>(EMPTY_ROOT, 0);

  /** @internal use {@link PersistentMap.empty} or {@link PersistentMap.from}. */
  protected constructor(
    /** @internal */ readonly root: Branch<V>,
    readonly size: number,
  ) {
    Object.freeze(this);
  }

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.EMPTY as PersistentMap<V>;
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    const b = new PersistentMapBuilder<V>();
    for (const [k, v] of entries) b.set(k, v);
    return b.build();
  }

  /** @internal */
  static of<V>(root: Branch<V>, size: number): PersistentMap<V> {
    return size === 0 ? PersistentMap.empty<V>() : new PersistentMap(root, size);
  }

  get(key: string): V | undefined {
    return getIn(this.root, key)?.value;
  }

  has(key: string): boolean {
    return getIn(this.root, key) !== undefined;
  }

  /** A new map with `key` set to `value` (this one when it already holds exactly that value). */
  set(key: string, value: V): PersistentMap<V> {
    const effect = { added: false, removed: false, same: false };
    const root = setIn(this.root, 0, new Leaf(hashKey(key), key, value), undefined, effect);
    return root === this.root ? this : PersistentMap.of(root, this.size + (effect.added ? 1 : 0));
  }

  /** A new map without `key` (this one when it has no such key). */
  delete(key: string): PersistentMap<V> {
    const effect = { added: false, removed: false, same: false };
    const root = deleteIn(this.root, 0, hashKey(key), key, undefined, effect);
    if (!effect.removed) return this;
    return PersistentMap.of((root as Branch<V> | undefined) ?? EMPTY_ROOT, this.size - 1);
  }

  /** A builder starting from this map, to apply many changes at the cost of one batch. */
  toBuilder(): PersistentMapBuilder<V> {
    return new PersistentMapBuilder<V>(this);
  }

  /**
   * The keys whose values differ (by `Object.is`) between `previous` and this map. Subtrees the two
   * versions share are skipped, so diffing consecutive versions costs about what changed; maps of
   * other lineages are compared in full.
   */
  diff(previous: ReadonlyMap<string, V>): MapChange<V>[] {
    const out: MapChange<V>[] = [];
    if (previous instanceof PersistentMap) {
      diffNodes((previous as PersistentMap<V>).root, this.root, 0, out);
      return out;
    }
    for (const [key, before] of previous) {
      const after = this.get(key);
      if (after === undefined && !this.has(key)) out.push({ key, before, after: undefined });
      else if (!Object.is(before, after)) out.push({ key, before, after });
    }
    for (const [key, after] of this) if (!previous.has(key)) out.push({ key, before: undefined, after });
    return out;
  }

  forEach(callbackfn: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    forEachLeaf(this.root, (l) => callbackfn.call(thisArg, l.value, l.key, this));
  }

  *entries(): MapIterator<[string, V]> {
    for (const l of leaves(this.root)) yield [l.key, l.value];
    return undefined;
  }

  *keys(): MapIterator<string> {
    for (const l of leaves(this.root)) yield l.key;
    return undefined;
  }

  *values(): MapIterator<V> {
    for (const l of leaves(this.root)) yield l.value;
    return undefined;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'PersistentMap';
  }
}

/**
 * Batches changes to a {@link PersistentMap}: writes mutate the nodes this builder created since its
 * last `build()` and copy shared ones once. `build()` returns an immutable map and seals those
 * nodes; the builder stays usable (later writes copy again).
 */
export class PersistentMapBuilder<V> {
  private root: Branch<V>;
  private count: number;
  private owner: Owner = { sealed: false };
  private last: PersistentMap<V> | undefined;

  constructor(from: PersistentMap<V> = PersistentMap.empty<V>()) {
    this.root = from.root;
    this.count = from.size;
    this.last = from;
  }

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return getIn(this.root, key)?.value;
  }

  has(key: string): boolean {
    return getIn(this.root, key) !== undefined;
  }

  set(key: string, value: V): this {
    const effect = { added: false, removed: false, same: false };
    this.root = setIn(this.root, 0, new Leaf(hashKey(key), key, value), this.owner, effect);
    if (effect.same) return this;
    if (effect.added) this.count++;
    this.last = undefined;
    return this;
  }

  delete(key: string): this {
    const effect = { added: false, removed: false, same: false };
    const root = deleteIn(this.root, 0, hashKey(key), key, this.owner, effect);
    if (!effect.removed) return this;
    this.root = (root as Branch<V> | undefined) ?? new Branch<V>(this.owner, 0, []);
    this.count--;
    this.last = undefined;
    return this;
  }

  /** Whether anything changed since the last `build()` (or since the map this builder started from). */
  get changed(): boolean {
    return this.last === undefined;
  }

  /** The current content as an immutable map (the same instance when nothing changed since the last build). */
  build(): PersistentMap<V> {
    if (this.last !== undefined) return this.last;
    this.owner.sealed = true;
    this.owner = { sealed: false };
    this.last = PersistentMap.of(this.root, this.count);
    return this.last;
  }
}
