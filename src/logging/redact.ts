import { redactSecrets } from './known-secrets.js';

/** The replacement text written in place of a secret value. */
export const REDACTED = '[REDACTED]';

const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|password|passwd|secret|token|bearer|apikey|api[-_]?key|client[-_]?key(-data)?|private[-_]?key|access[-_]?token|refresh[-_]?token|id[-_]?token|bearer[-_]?token|client[-_]?secret|credentials?)$/i;
const SECRET_KEY_SUFFIX = /(password|secret|token|credentials?|private[-_]?key|key[-_]?data)$/i;
const BEARER = /\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s:]+:[^/@\s]+@/gi;

/** Whether a field name looks like it holds a secret (Authorization, token, password, …). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || SECRET_KEY_SUFFIX.test(key);
}

/**
 * Masks the credential values in use (see `known-secrets.ts`: tokens, passwords, client keys the
 * client has sent), bearer/basic credentials, JWTs and `user:password@` in URLs inside a string.
 */
export function redactString(value: string): string {
  return redactSecrets(value)
    .replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(JWT, REDACTED)
    .replace(URL_USERINFO, (_m, scheme: string) => `${scheme}${REDACTED}@`);
}

/**
 * Returns a copy of `value` safe to write to a log: values under secret-looking keys become
 * `[REDACTED]`, credentials embedded in strings are masked, the `data`/`stringData` of a
 * `kind: Secret` object are dropped, `Error`s become `{name, message, stack}`, and cycles and
 * depth beyond 8 are cut. Never throws.
 */
export function redact(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactString(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? String(value) : value;
  }
  if (seen.has(value)) return '[Circular]';
  if (depth >= 8) return '[Truncated]';
  seen.add(value);
  try {
    if (value instanceof Error) {
      return {
        name: value.name,
        message: redactString(value.message),
        ...(value.stack === undefined ? {} : { stack: redactString(value.stack) }),
      };
    }
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
    const record = value as Record<string, unknown>;
    const isSecretObject = record['kind'] === 'Secret';
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (isSecretKey(k) || (isSecretObject && (k === 'data' || k === 'stringData'))) {
        out[k] = REDACTED;
      } else {
        out[redactSecrets(k)] = redact(v, depth + 1, seen);
      }
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
