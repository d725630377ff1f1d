import { from, Observable, type ObservableInput, type OperatorFunction, type Subscription } from 'rxjs';
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
 * input:  -a1-b1-a2-a✕-a✕-b2-|      a1: key a, value 1; a✕: key a deleted
 * output: -A---B--C--D-----E-|      A {a, 10}  B {b, 10}  C {a, 20}  D {a deleted}  E {b, 20}
 * ```
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
 * input:  -a1-b1-a1-a2-a✕-a2-|
 * output: -A--B-----C--D--E--|      A {a, 1}  B {b, 1}  C {a, 2}  D {a deleted}  E {a, 2}
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
 * input:  -a1-b5-a2-a✕-a3-|
 * output: -A--B--C--D--E--|      A {a, 1}  B {b, 5}  C {a, 3}  D {a deleted}  E {a, 3} (fresh seed)
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
 * switchMapByKey(v => interval-of-three(v))      each value starts -v-v-v| (1 frame apart)
 * input:  -a1----a2-b1---a✕----|
 * output: --A1-A1-A2-(A2 B1)-(a✕ B1)-B1-|   a1's inner is cut by a2; a✕ cuts a2's inner
 * ```
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
          let inner: Subscription | undefined;
          let finished = false;
          const finish = (): void => {
            finished = true;
            if (inner !== undefined) inners.delete(inner);
          };
          inner = from(project(value, key)).subscribe({
            next: (r) => emit({ key, deleted: false, value: r }),
            error: (err: unknown) => {
              finish();
              subscriber.error(err);
            },
            complete: () => {
              finish();
              checkDone();
            },
          });
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
 * input:  -a1-b1-a2-a✕-|
 * output: -A--B--C--D--|      A {a:1}  B {a:1, b:1}  C {a:2, b:1}  D {b:1}
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
