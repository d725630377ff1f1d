/**
 * Typed errors of the cache core. Every error that concerns one object carries that object, so a
 * report names what was rejected; none of them is thrown into a long-lived stream (operators hand
 * them to an `onError` callback and keep their state, see `operators/delta-fifo.ts`).
 */

import { type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';

/** Base class of every cache-core error; thrown itself for an object without metadata. */
export class CacheError extends RxkubeError {
  static override readonly code: string = 'CACHE_ERROR';
  static override readonly layer: ErrorLayer = 'cache';
  override readonly name: string = 'CacheError';
}

/** Short, safe description of an object for error messages (`kind ns/name` when available). */
export function objectDescription(object: unknown): string {
  if (object === null || object === undefined) return String(object);
  if (typeof object === 'string') return JSON.stringify(object);
  if (typeof object !== 'object') return String(object);
  const o = object as { kind?: unknown; metadata?: { namespace?: unknown; name?: unknown }; key?: unknown };
  const meta = o.metadata;
  if (meta && typeof meta === 'object') {
    const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/` : '';
    const name = typeof meta.name === 'string' && meta.name !== '' ? meta.name : '<no name>';
    return `${typeof o.kind === 'string' ? `${o.kind} ` : ''}${ns}${name}`;
  }
  if (typeof o.key === 'string') return `tombstone ${o.key}`;
  try {
    const json = JSON.stringify(object);
    return json.length > 120 ? `${json.slice(0, 117)}...` : json;
  } catch {
    return Object.prototype.toString.call(object);
  }
}

/**
 * A key could not be computed for an object (ST-4): no metadata, no name, or a key with too many
 * `/`. Wraps the object and the cause; `rootCause()` unwraps nested KeyErrors.
 */
export class KeyError extends CacheError {
  static override readonly code: string = 'CACHE_KEY_INVALID';
  override readonly name = 'KeyError';
  constructor(
    readonly object: unknown,
    override readonly cause: unknown,
  ) {
    super(`couldn't create key for object ${objectDescription(object)}: ${causeMessage(cause)}`, { cause });
  }

  /** The innermost cause, following nested `KeyError`s. */
  rootCause(): unknown {
    let c: unknown = this.cause;
    while (c instanceof KeyError) c = c.cause;
    return c;
  }
}

/** A `transform` threw for an object; that one object was not queued (DF-7). */
export class TransformError extends CacheError {
  static override readonly code: string = 'CACHE_TRANSFORM_FAILED';
  override readonly name = 'TransformError';
  constructor(
    readonly object: unknown,
    override readonly cause: unknown,
  ) {
    super(`transforming ${objectDescription(object)}: ${causeMessage(cause)}`, { cause });
  }
}

/** An input the operator does not understand: an unknown FIFO operation or delta type. */
export class InvalidInputError extends CacheError {
  static override readonly code: string = 'CACHE_INPUT_INVALID';
  override readonly name = 'InvalidInputError';
  constructor(
    readonly input: unknown,
    reason: string,
  ) {
    super(`${reason}: ${objectDescription(input)}`);
  }
}

/** An index name that was never registered (ST-9). */
export class IndexNotFoundError extends CacheError {
  static override readonly code: string = 'CACHE_INDEX_NOT_FOUND';
  override readonly name = 'IndexNotFoundError';
  constructor(readonly indexName: string) {
    super(`Index with name ${indexName} does not exist`);
  }
}

/** `addIndexers` refused: a name already exists, or the store already holds data (ST-10). */
export class IndexerConflictError extends CacheError {
  static override readonly code: string = 'CACHE_INDEXER_CONFLICT';
  override readonly name = 'IndexerConflictError';
  constructor(
    readonly indexNames: readonly string[],
    reason: 'conflict' | 'not-empty',
  ) {
    super(
      reason === 'conflict'
        ? `indexer conflict: ${indexNames.join(', ')}`
        : `cannot add indexers to a store that already holds objects: ${indexNames.join(', ')}`,
    );
  }
}

/** An index function threw while indexing an object (ST-8: fatal for that write). */
export class IndexFuncError extends CacheError {
  static override readonly code: string = 'CACHE_INDEX_FUNC_FAILED';
  override readonly name = 'IndexFuncError';
  constructor(
    readonly indexName: string,
    readonly object: unknown,
    override readonly cause: unknown,
  ) {
    super(`index function ${indexName} failed for ${objectDescription(object)}: ${causeMessage(cause)}`, { cause });
  }
}

function causeMessage(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
