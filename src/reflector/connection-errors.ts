import { isNetworkError } from '../client/network-error.js';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/** True when `err` (or an error in its `cause` chain) is a refused TCP connection. */
export function isConnectionRefused(err: unknown): boolean {
  return codesOf(err).includes('ECONNREFUSED');
}

/**
 * True when `err` is a network-level failure: the client's `NetworkError`, or an error whose cause
 * chain carries a socket error code (refused, reset, timed out, …).
 */
export function isConnectionError(err: unknown): boolean {
  if (isNetworkError(err) || codesOf(err).some((c) => CONNECTION_CODES.has(c))) return true;
  return err instanceof Error && /socket hang up|other side closed|terminated/i.test(err.message);
}
