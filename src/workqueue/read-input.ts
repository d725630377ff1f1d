import { InvalidRequestError } from './invalid-request-error.js';
import type { KeyQueue } from './key-queue.js';
import type { RateLimiter } from './rate-limiter.js';
import { checkRequestKey, parseRequestKey, requestKey, type Request, type WorkQueueInput } from './request.js';

/** One input of the work queue, checked: the arguments of `KeyQueue.add`. */
export interface QueueAdd {
  readonly key: string;
  /** The request when the input carried one; a bare key string is parsed when it is handed out. */
  readonly value: Request | undefined;
  /** Delay (ms); undefined for a plain add. */
  readonly after: number | undefined;
  readonly priority: number | undefined;
}

/**
 * Checks one input (a key string, a {@link Request} or a `WorkQueueAdd`) and turns it into an add.
 * A `rateLimited` add asks `limiter` for its delay here; the smaller of that and `after` wins.
 * A key string already held by `queue` is not checked again.
 * @throws InvalidRequestError for anything that is not a valid input.
 */
export function readInput(input: WorkQueueInput, queue: KeyQueue<Request>, limiter: RateLimiter): QueueAdd {
  try {
    return read(input, queue, limiter);
  } catch (error) {
    throw error instanceof InvalidRequestError ? error : new InvalidRequestError(String(error));
  }
}

function read(input: WorkQueueInput, queue: KeyQueue<Request>, limiter: RateLimiter): QueueAdd {
  if (typeof input === 'string') {
    if (!queue.has(input)) checkRequestKey(input);
    return { key: input, value: undefined, after: undefined, priority: undefined };
  }
  if (input !== null && typeof input === 'object' && 'request' in input) {
    const r = input.request;
    const value = typeof r === 'string' ? parseRequestKey(r) : r;
    const key = typeof r === 'string' ? r : requestKey(r);
    const priority = checkPriority(input.priority);
    let after = input.after !== undefined ? checkAfter(input.after) : undefined;
    if (input.rateLimited === true) {
      const wait = limiter.when(key);
      after = after === undefined ? wait : Math.min(after, wait);
    }
    return { key, value, after, priority };
  }
  return { key: requestKey(input), value: input, after: undefined, priority: undefined };
}

function checkPriority(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidRequestError(`priority must be a finite number, got ${String(value)}`);
  }
  return value;
}

function checkAfter(value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidRequestError(`after must be a number (ms), got ${String(value)}`);
  }
  return value;
}
