import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { apiErrorFromResponse, parseRetryAfter } from '../../src/client/api-error-from-response.js';
import {
  ApiError, isAlreadyExists, isConflict, isExpired, isGone, isNotFound, isTooLargeResourceVersion, isTooManyRequests, retryAfter,
} from '../../src/client/api-error.js';
import { watchEventError } from '../../src/client/watch-event-error.js';
import { report } from './report.js';

/**
 * Fuzzing Status decoding: random bodies (text, JSON, Status-shaped objects with wrong-typed
 * fields), random codes and `Retry-After` headers. The property: an ApiError whose fields have
 * their declared types, every predicate answers a boolean, `Retry-After` is a whole number of
 * seconds or absent, and a secret never appears in the message.
 */

const NOW = Date.UTC(2026, 0, 1);
const SECRET = 'tok-s3cr3t-value';
const odd = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.anything(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
const cause = fc.record({ reason: fc.oneof(fc.constantFrom('ResourceVersionTooLarge', 'FieldValueInvalid'), odd), message: fc.oneof(fc.constant('Too large resource version'), odd), field: odd }, { requiredKeys: [] });
const statusLike = fc.record(
  {
    kind: fc.oneof(fc.constant('Status'), odd),
    apiVersion: odd,
    status: fc.oneof(fc.constantFrom('Failure', 'Success'), odd),
    message: fc.oneof(fc.string().map((s) => `${s}${SECRET}${s}`), odd),
    reason: fc.oneof(fc.constantFrom('Gone', 'Expired', 'NotFound', 'Conflict', 'AlreadyExists', 'TooManyRequests', 'Timeout', '__proto__', 'constructor'), odd),
    code: fc.oneof(fc.constantFrom(404, 409, 410, 429, 500, 504), odd),
    details: fc.oneof(odd, fc.record({ causes: fc.oneof(fc.array(fc.oneof(cause, odd), { maxLength: 3 }), odd), retryAfterSeconds: fc.oneof(fc.nat(), odd), name: odd }, { requiredKeys: [] })),
    metadata: odd,
  },
  { requiredKeys: ['kind'] },
);
const body = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 2000 }),
  fc.json(),
  statusLike.map((s) => JSON.stringify(s)),
  fc.constantFrom('', '   ', 'null', '{"kind":"Status"}', `<html>${SECRET}</html>`, `{"kind":"Status","message":${JSON.stringify(SECRET)}}`),
);
const retryAfterHeader = fc.oneof(
  fc.constant(undefined),
  fc.nat().map(String),
  fc.string(),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.array(fc.oneof(fc.nat().map(String), fc.string()), { maxLength: 3 }),
  fc.constantFrom('-1', '1.5', '1e3', '  7  ', 'Infinity', '99999999999999999999999'),
);

function checkError(e: ApiError): void {
  expect(e).toBeInstanceOf(ApiError);
  expect(typeof e.statusCode).toBe('number');
  expect(Number.isFinite(e.statusCode)).toBe(true);
  expect(typeof e.reason).toBe('string');
  expect(typeof e.message).toBe('string');
  if (e.status.message !== undefined) expect(typeof e.status.message).toBe('string');
  if (e.retryAfterSeconds !== undefined) {
    expect(Number.isInteger(e.retryAfterSeconds)).toBe(true);
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(0);
  }
  for (const p of [isGone, isExpired, isTooLargeResourceVersion, isConflict, isAlreadyExists, isNotFound, isTooManyRequests]) {
    expect(typeof p(e)).toBe('boolean');
  }
  const r = retryAfter(e);
  expect(r === undefined || typeof r === 'number').toBe(true);
}

describe('fuzz: Status decoding', () => {
  it('apiErrorFromResponse: any code, body and headers give a well-typed ApiError without the secret', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 400, max: 599 }), fc.integer({ min: 0, max: 999 })), body, retryAfterHeader, (code, text, ra) => {
        runs++;
        const e = apiErrorFromResponse(code, text, { 'retry-after': ra, 'content-type': 'application/json' }, { nowMs: NOW, secrets: [SECRET] });
        checkError(e);
        expect(e.message).not.toContain(SECRET);
      }),
      { numRuns: 1500 },
    );
    report('Status decoding / apiErrorFromResponse', runs);
  });

  it('watchEventError: any ERROR object gives a well-typed ApiError', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.oneof(statusLike, fc.object()), (object) => {
        runs++;
        const e = watchEventError({ type: 'ERROR', object } as WatchEvent);
        expect(e).toBeDefined();
        if (e !== undefined) checkError(e);
      }),
      { numRuns: 1000 },
    );
    report('Status decoding / watch ERROR events', runs);
  });

  it('parseRetryAfter: whole non-negative seconds or undefined', () => {
    let runs = 0;
    fc.assert(
      fc.property(retryAfterHeader, fc.integer({ min: 0, max: 4_000_000_000_000 }), (v, now) => {
        runs++;
        const s = parseRetryAfter(v, now);
        if (s !== undefined) {
          expect(Number.isSafeInteger(s)).toBe(true);
          expect(s).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 1000 },
    );
    report('Status decoding / Retry-After', runs);
  });
});
