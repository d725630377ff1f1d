import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { NetworkError } from '../../src/client/network-error.js';
import { isConnectionError, isConnectionRefused } from '../../src/reflector/connection-errors.js';

const coded = (code: string) => Object.assign(new Error(code), { code });

describe('connection errors', () => {
  it('recognises refused connections directly, wrapped, and as the client NetworkError', () => {
    expect(isConnectionRefused(coded('ECONNREFUSED'))).toBe(true);
    expect(isConnectionRefused(new Error('fetch failed', { cause: coded('ECONNREFUSED') }))).toBe(true);
    expect(isConnectionRefused(new NetworkError('GET', '/api/v1/pods', coded('ECONNREFUSED')))).toBe(true);
    expect(isConnectionRefused(coded('ECONNRESET'))).toBe(false);
    expect(isConnectionRefused(new ApiError({ code: 500 }))).toBe(false);
  });
  it('recognises other network failures but not API errors', () => {
    expect(isConnectionError(coded('ECONNRESET'))).toBe(true);
    expect(isConnectionError(new NetworkError('GET', '/x', new Error('premature close')))).toBe(true);
    expect(isConnectionError(new Error('socket hang up'))).toBe(true);
    expect(isConnectionError(new ApiError({ code: 503, reason: 'ServiceUnavailable' }))).toBe(false);
    expect(isConnectionError(new Error('boom'))).toBe(false);
  });
});
