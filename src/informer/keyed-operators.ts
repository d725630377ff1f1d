import { from, Observable, type ObservableInput, type OperatorFunction, Subscription } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { deletionHandlingKey, type ObjectKey } from '../cache/keys.js';
import { PersistentMapBuilder } from '../cache/persistent-map.js';
import type { Joined } from './join.js';

/**
 * One change of one key, what the keyed operators emit (and take): the key's new value, or its
 * deletion. A deletion is emitted once per key that had a value downstream, then the key is forgotten.
 */
export type KeyedChange<V> =
  | { readonly key: ObjectKey; readonly deleted: false; readonly value: V }
  | { readonly key: ObjectKey; readonly deleted: true };

/** A joined view whose left object exists (the value a keyed operator sees for a join output). */
export interface LiveJoined<L extends KubeObject, R extends KubeObject> extends Joined<L, R> {
  readonly left: L;
}

/**
 * What the keyed operators take: informer events (key = object key, value = the object; a delete,
 * tombstone or not, deletes), join output (key = left key, value = the view; `left` undefined
 * deletes) or keyed changes.
 */
export type KeyedInput =
  | KeyedChange<unknown>
  | InformerEvent<KubeObject>
  | Joined<KubeObject, KubeObject>;

/** The value type a keyed operator sees for input `I`. */
export type KeyedValue<I> = [I] extends [KeyedChange<infer V>]
  ? V
  : [I] extends [InformerEvent<infer T>]
    ? T
    : [I] extends [Joined<infer L, infer R>]
      ? LiveJoined<L, R>
      : never;

/** The key and value (or deletion) of one keyed input. */
export function keyedChange<I extends KeyedInput>(input: I): KeyedChange<KeyedValue<I>> {
  if ('deleted' in input) return input as KeyedChange<KeyedValue<I>>;
  if ('type' in input) {
    const key = deletionHandlingKey(input.object);
    return (input.type === 'delete' ? { key, deleted: true } : { key, deleted: false, value: input.object }) as KeyedChange<KeyedValue<I>>;
  }
  return (input.left === undefined ? { key: input.key, deleted: true } : { key: input.key, deleted: false, value: input }) as KeyedChange<
    KeyedValue<I>
  >;
}

/**
 * The skeleton of every keyed operator: per-key state `S`, created on a key's first value,
 * dropped (after `onDelete`) when the key is deleted; every key's state is released on
 * unsubscribe, error and completion.
 */
function keyed<I extends KeyedInput, S, R>(
  step: (state: S | undefined, value: KeyedValue<I>, key: ObjectKey, emit: (change: KeyedChange<R>) => void) => S,
  options: {
    readonly release?: (state: S) => void;
    /** Called before completing; returns false to complete later (through `done`). */
    readonly complete?: (states: ReadonlyMap<ObjectKey, S>, done: () => void) => boolean;
  } = {},
): OperatorFunction<I, KeyedChange<R>> {
  return (source) =>
    new Observable<KeyedChange<R>>((subscriber) => {
      const states = new Map<ObjectKey, S>();
      const emit = (change: KeyedChange<R>): void => subscriber.next(change);
      const releaseAll = (): void => {
        const all = [...states.values()];
        states.clear();
        if (options.release !== undefined) for (const s of all) options.release(s);
      };
      const sub = source.subscribe({
        next: (input) => {
          const change = keyedChange(input);
          const state = states.get(change.key);
          if (change.deleted) {
            if (state === undefined && !states.has(change.key)) return;
            states.delete(change.key);
            if (options.release !== undefined) options.release(state as S);
            subscriber.next({ key: change.key, deleted: true });
            return;
          }
          states.set(change.key, step(state, change.value, change.key, emit));
        },
        error: (err: unknown) => {
          releaseAll();
          subscriber.error(err);
        },
        complete: () => {
          if (options.complete === undefined || options.complete(states, () => subscriber.complete())) {
            releaseAll();
            subscriber.complete();
          }
        },
      });
      return () => {
        sub.unsubscribe();
        releaseAll();
      };
    });
}

/**
 * Per-key `map`: each value becomes `project(value, key)`; a deleted key emits one deletion and
 * is forgotten (a deletion of a key never seen is dropped).
 *
 * ```
 * mapByKey(v => v * 10)
 * input:  -a-b-c-x-x-d-|      a {a, 1}  b {b, 1}  c {a, 2}  x {a deleted}  d {b, 2}
 * output: -A-B-C-X---D-|      A {a, 10}  B {b, 10}  C {a, 20}  X {a deleted}  D {b, 20}
 * ```
 * The second x is dropped: key a was already forgotten.
 */
export function mapByKey<I extends KeyedInput, R>(
  project: (value: KeyedValue<I>, key: ObjectKey) => R,
): OperatorFunction<I, KeyedChange<R>> {
  return keyed<I, true, R>((_, value, key, emit) => {
    emit({ key, deleted: false, value: project(value, key) });
    return true;
  });
}

/**
 * Per-key `distinctUntilChanged`: a value equal (by `compare`, default `Object.is`) to the last one
 * emitted for its key is dropped. A deletion is emitted and forgets the key, so a key that comes
 * back is emitted again even with the same value.
 *
 * ```
 * distinctByKey()
 * input:  -a-b-a-c-x-c-|      a {a, 1}  b {b, 1}  c {a, 2}  x {a deleted}
 * output: -a-b---c-x-c-|      the second {a, 1} is dropped; after x, {a, 2} is new again
 * ```
 */
export function distinctByKey<I extends KeyedInput>(
  compare: (previous: KeyedValue<I>, current: KeyedValue<I>) => boolean = Object.is,
): OperatorFunction<I, KeyedChange<KeyedValue<I>>> {
  return keyed<I, { readonly last: KeyedValue<I> }, KeyedValue<I>>((state, value, key, emit) => {
    if (state !== undefined && compare(state.last, value)) return state;
    emit({ key, deleted: false, value });
    return { last: value };
  });
}

/**
 * Per-key `scan`: each key has its own accumulator, started from `seed` (a value, or a function of
 * the key) on its first value; a deletion emits once and drops the accumulator.
 *
 * ```
 * scanByKey((sum, v) => sum + v, 0)
 * input:  -a-b-c-x-a-|      a {a, 1}  b {b, 5}  c {a, 2}  x {a deleted}
 * output: -A-B-C-X-A-|      A {a, 1}  B {b, 5}  C {a, 3}  X {a deleted}  A {a, 1} (a fresh accumulator)
 * ```
 */
export function scanByKey<I extends KeyedInput, A>(
  accumulator: (acc: A, value: KeyedValue<I>, key: ObjectKey) => A,
  seed: A | ((key: ObjectKey) => A),
): OperatorFunction<I, KeyedChange<A>> {
  const seedOf = (key: ObjectKey): A => (typeof seed === 'function' ? (seed as (key: ObjectKey) => A)(key) : seed);
  return keyed<I, { readonly acc: A }, A>((state, value, key, emit) => {
    const acc = accumulator(state === undefined ? seedOf(key) : state.acc, value, key);
    emit({ key, deleted: false, value: acc });
    return { acc };
  });
}

/**
 * Per-key `switchMap`: each value of a key starts `project(value, key)` and unsubscribes that
 * key's previous inner; other keys run on. A deletion unsubscribes the key's inner, emits one
 * deletion and forgets the key. Unsubscribing the output unsubscribes every inner (and the
 * source). Completes when the source and every inner have completed; an inner error errors the
 * output (catch inside `project` to isolate one key).
 *
 * ```
 * switchMapByKey((v, key) => inner(key, v))      inner of a: -p-q-r|   inner of b: --p---q|
 * input:  -a-c--bx------|      a {a, 1}  c {a, 2}  b {b, 1}  x {a deleted}
 * output: --A-C-Dxb---e-|      A a1p  C a2p  D a2q  x {a deleted}  b b1p  e b1q
 * ```
 * c cuts a1's inner after its p; x cuts a2's inner before its r; b runs on.
 */
export function switchMapByKey<I extends KeyedInput, R>(
  project: (value: KeyedValue<I>, key: ObjectKey) => ObservableInput<R>,
): OperatorFunction<I, KeyedChange<R>> {
  return (source) =>
    new Observable<KeyedChange<R>>((subscriber) => {
      let done: (() => void) | undefined;
      const inners = new Set<Subscription>();
      const checkDone = (): void => {
        if (done !== undefined && inners.size === 0) done();
      };
      const sub = keyed<I, Subscription, R>(
        (state, value, key, emit) => {
          if (state !== undefined) {
            state.unsubscribe();
            inners.delete(state);
          }
          const inner = new Subscription();
          let finished = false;
          const finish = (): void => {
            finished = true;
            inners.delete(inner);
          };
          inner.add(
            from(project(value, key)).subscribe({
              next: (r) => emit({ key, deleted: false, value: r }),
              error: (err: unknown) => {
                finish();
                subscriber.error(err);
              },
              complete: () => {
                finish();
                checkDone();
              },
            }),
          );
          if (!finished) inners.add(inner);
          return inner;
        },
        {
          release: (inner) => {
            inner.unsubscribe();
            inners.delete(inner);
          },
          complete: (_, complete) => {
            done = complete;
            if (inners.size === 0) return true;
            return false;
          },
        },
      )(source).subscribe(subscriber);
      return () => {
        sub.unsubscribe();
        for (const inner of inners) inner.unsubscribe();
        inners.clear();
      };
    });
}

/**
 * Collects keyed changes into the current map of key → latest value: emits an immutable
 * `ReadonlyMap` after each change (a deletion removes the key). The maps share structure
 * (a persistent map), so each emission costs O(log n), not a copy.
 *
 * ```
 * collectByKey()
 * input:  -a-b-c-x-y-|      a {a, 1}  b {b, 1}  c {a, 2}  x {a deleted}  y {zz deleted} (never seen)
 * output: -A-B-C-X---|      A {a:1}  B {a:1, b:1}  C {a:2, b:1}  X {b:1}
 * ```
 */
export function collectByKey<I extends KeyedInput>(): OperatorFunction<I, ReadonlyMap<ObjectKey, KeyedValue<I>>> {
  return (source) =>
    new Observable<ReadonlyMap<ObjectKey, KeyedValue<I>>>((subscriber) => {
      const builder = new PersistentMapBuilder<KeyedValue<I>>();
      return source.subscribe({
        next: (input) => {
          const change = keyedChange(input);
          if (change.deleted) {
            if (!builder.has(change.key)) return;
            builder.delete(change.key);
          } else {
            builder.set(change.key, change.value);
            if (!builder.changed) return; // the same value again
          }
          subscriber.next(builder.build());
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
