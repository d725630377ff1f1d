import { filter, type MonoTypeOperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { compileLabelSelector, type StructuredLabelSelector } from '../api/label-selector.js';

/**
 * Decides whether an informer event should reach a handler (controller-runtime's `Predicate`).
 * Predicates are plain functions, so they compose with {@link and}, {@link or}, {@link not} and
 * plug into RxJS through {@link filterEvents} (or `filter(p)`).
 */
export type EventPredicate<T extends KubeObject = KubeObject> = (event: InformerEvent<T>) => boolean;

/**
 * Keeps the events a predicate accepts.
 *
 * ```
 * predicate: generationChanged()
 * events:  --a--u(g1→g1)--u(g1→g2)--d--|
 * output:  --a------------u(g1→g2)--d--|
 * ```
 */
export function filterEvents<T extends KubeObject>(...predicates: EventPredicate<T>[]): MonoTypeOperatorFunction<InformerEvent<T>> {
  const p = and(...predicates);
  return filter(p);
}

/** Applies `test` to updates only; add and delete pass (CR-10); a missing old or new object fails. */
function onUpdate<T extends KubeObject>(test: (old: T, object: T) => boolean): EventPredicate<T> {
  return (event) => {
    if (event.type !== 'update') return true;
    if (event.old === null || typeof event.old !== 'object' || event.object === null || typeof event.object !== 'object') {
      return false;
    }
    return test(event.old, event.object);
  };
}

/**
 * Passes updates whose `metadata.resourceVersion` changed (drops resyncs), and every add/delete.
 *
 * ```
 * events:  --a--u(rv1→rv1)--u(rv1→rv2)--|
 * output:  --a--------------u(rv1→rv2)--|
 * ```
 */
export function resourceVersionChanged<T extends KubeObject>(): EventPredicate<T> {
  return onUpdate((old, o) => old.metadata?.resourceVersion !== o.metadata?.resourceVersion);
}

/**
 * Passes updates whose `metadata.generation` changed — the API server bumps it on spec changes
 * only, so status, label and annotation updates are dropped; objects without a generation always
 * compare equal (dropped). Adds and deletes pass.
 *
 * ```
 * events:  --a--u(g1→g1)--u(g1→g2)--|
 * output:  --a------------u(g1→g2)--|
 * ```
 */
export function generationChanged<T extends KubeObject>(): EventPredicate<T> {
  return onUpdate((old, o) => old.metadata?.generation !== o.metadata?.generation);
}

/**
 * Passes updates whose labels changed; a missing label map equals `{}` (CR-10). Adds and
 * deletes pass.
 *
 * ```
 * events:  --u({}→none)--u({a:1}→{a:2})--|
 * output:  --------------u({a:1}→{a:2})--|
 * ```
 */
export function labelsChanged<T extends KubeObject>(): EventPredicate<T> {
  return onUpdate((old, o) => !sameMap(old.metadata?.labels, o.metadata?.labels));
}

/**
 * Passes updates whose annotations changed; a missing annotation map equals `{}` (CR-10). Adds
 * and deletes pass.
 *
 * ```
 * events:  --u({}→none)--u({a:1}→{})--|
 * output:  --------------u({a:1}→{})--|
 * ```
 */
export function annotationsChanged<T extends KubeObject>(): EventPredicate<T> {
  return onUpdate((old, o) => !sameMap(old.metadata?.annotations, o.metadata?.annotations));
}

/**
 * Applies `test` to the event's object: the new object for updates, the last known object for
 * deletes (a tombstone without one passes: a consumer must be able to clean up).
 *
 * ```
 * test: o => o.metadata.name.startsWith('a')
 * events:  --add(a1)--add(b1)--u(a2)--d(b2)--|
 * output:  --add(a1)-----------u(a2)---------|
 * ```
 */
export function objectPredicate<T extends KubeObject>(test: (object: T) => boolean): EventPredicate<T> {
  return (event) => {
    let o: T | DeletedFinalStateUnknown<T> | null = event.object;
    if (o instanceof DeletedFinalStateUnknown) o = o.object;
    if (o === null || typeof o !== 'object') return event.type === 'delete';
    return test(o);
  };
}

/**
 * Passes events whose object's labels match `selector` (string syntax or structured). Throws
 * `LabelSelectorError` at once for an invalid selector (CR-10).
 *
 * ```
 * selector: 'app=web'
 * events:  --add(app=web)--add(app=db)--|
 * output:  --add(app=web)---------------|
 * ```
 */
export function labelSelectorPredicate<T extends KubeObject>(selector: string | StructuredLabelSelector): EventPredicate<T> {
  const match = compileLabelSelector(selector);
  return objectPredicate((o) => match(o.metadata?.labels));
}

/**
 * All predicates pass (stops at the first that fails); no predicates → true.
 *
 * ```
 * and(p, q):  --x(p✓q✓)--y(p✓q✗)--z(p✗)--|  →  --x--|
 * ```
 */
export function and<T extends KubeObject>(...predicates: EventPredicate<T>[]): EventPredicate<T> {
  return (event) => {
    for (const p of predicates) if (!p(event)) return false;
    return true;
  };
}

/**
 * Some predicate passes (stops at the first that passes); no predicates → false.
 *
 * ```
 * or(p, q):  --x(p✓)--y(p✗q✓)--z(p✗q✗)--|  →  --x--y--|
 * ```
 */
export function or<T extends KubeObject>(...predicates: EventPredicate<T>[]): EventPredicate<T> {
  return (event) => {
    for (const p of predicates) if (p(event)) return true;
    return false;
  };
}

/**
 * The negation of a predicate.
 *
 * ```
 * not(p):  --x(p✓)--y(p✗)--|  →  --y--|
 * ```
 */
export function not<T extends KubeObject>(predicate: EventPredicate<T>): EventPredicate<T> {
  return (event) => !predicate(event);
}

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const kx = Object.keys(x);
  if (kx.length !== Object.keys(y).length) return false;
  for (const k of kx) {
    if (!Object.prototype.hasOwnProperty.call(y, k) || x[k] !== y[k]) return false;
  }
  return true;
}
