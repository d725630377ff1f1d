import { describe, expect, it } from 'vitest';
import {
  ApiError,
  isConflict,
  isExpired,
  isGone,
  isNotFound,
  isTooLargeResourceVersion,
  isTooManyRequests,
  retryAfter,
} from '../../src/client/api-error.js';
import { apiErrorFromResponse } from '../../src/client/api-error-from-response.js';

const nowMs = 0;

describe('ApiError classification', () => {
  it('reads the cause type from `reason`, as kube-apiserver serializes it', () => {
    // Body as kube-apiserver sends it for a list at a future resourceVersion (no tell-tale message).
    const body = JSON.stringify({
      kind: 'Status',
      status: 'Failure',
      reason: 'Timeout',
      code: 504,
      message: 'Timeout: request did not complete',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'rv 99 is ahead' }], retryAfterSeconds: 1 },
    });
    const err = apiErrorFromResponse(504, body, {}, { nowMs });
    expect(err.status.details?.causes).toEqual([{ reason: 'ResourceVersionTooLarge', message: 'rv 99 is ahead' }]);
    expect(isTooLargeResourceVersion(err)).toBe(true);
    expect(retryAfter(err)).toBe(1);
  });

  it('falls back to the message for older servers', () => {
    const err = new ApiError({ code: 504, reason: 'Timeout', message: 'Too large resource version: 50, current: 40' });
    expect(isTooLargeResourceVersion(err)).toBe(true);
    expect(isTooLargeResourceVersion(new ApiError({ code: 504, reason: 'Timeout', message: 'slow' }))).toBe(false);
  });

  it('classifies Gone, Expired, Conflict, NotFound and 429', () => {
    expect(isGone(new ApiError({ code: 410, reason: 'Gone' }))).toBe(true);
    expect(isExpired(new ApiError({ code: 410, reason: 'Expired' }))).toBe(true);
    expect(isExpired(new ApiError({ code: 410, reason: 'Gone' }))).toBe(true);
    expect(isGone(new ApiError({ code: 410, reason: 'Expired' }))).toBe(true);
    expect(isConflict(new ApiError({ code: 409, reason: 'Conflict' }))).toBe(true);
    expect(isConflict(new ApiError({ code: 409, reason: 'AlreadyExists' }))).toBe(false);
    expect(isNotFound(new ApiError({ code: 404, reason: 'NotFound' }))).toBe(true);
    expect(isTooManyRequests(new ApiError({ code: 429, reason: 'TooManyRequests' }))).toBe(true);
    expect(isGone(new Error('410'))).toBe(false);
  });
});
