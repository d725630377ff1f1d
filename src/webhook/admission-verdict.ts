/** At most this many warnings go back to the API server per answer (the rest are dropped). */
export const MAX_WARNINGS = 32;

/**
 * What an admission handler decides: allowed (optionally with warnings `kubectl` prints), or
 * denied with a message (the API server returns it to the client: `admission webhook "…" denied
 * the request: <message>`), an HTTP-style code (default 403) and a reason (default `Forbidden`).
 */
export type AdmissionVerdict =
  | { readonly allowed: true; readonly warnings?: readonly string[] }
  | { readonly allowed: false; readonly message: string; readonly code?: number; readonly reason?: string; readonly warnings?: readonly string[] };

/** An allowing verdict, with optional warnings. */
export function allow(...warnings: string[]): AdmissionVerdict {
  return warnings.length === 0 ? { allowed: true } : { allowed: true, warnings };
}

/** A denying verdict: `message` is what the client sees. */
export function deny(message: string, options: { readonly code?: number; readonly reason?: string; readonly warnings?: readonly string[] } = {}): AdmissionVerdict {
  return { allowed: false, message, ...options };
}

/**
 * A handler's return value as a verdict: nothing → allowed; a verdict → itself; anything else is
 * a programming error, described in the returned message.
 */
export function toVerdict(value: unknown): AdmissionVerdict | string {
  if (value === undefined) return { allowed: true };
  if (typeof value !== 'object' || value === null) return `handler returned ${JSON.stringify(value)}, expected nothing or allow()/deny()`;
  const v = value as { allowed?: unknown; message?: unknown; code?: unknown; reason?: unknown; warnings?: unknown };
  const warnings = Array.isArray(v.warnings) ? v.warnings.filter((w): w is string => typeof w === 'string').slice(0, MAX_WARNINGS) : undefined;
  const withWarnings = warnings === undefined || warnings.length === 0 ? {} : { warnings };
  if (v.allowed === true) return { allowed: true, ...withWarnings };
  if (v.allowed === false) {
    return {
      allowed: false,
      message: typeof v.message === 'string' && v.message !== '' ? v.message : 'denied',
      ...(typeof v.code === 'number' && Number.isInteger(v.code) && v.code >= 400 && v.code < 600 ? { code: v.code } : {}),
      ...(typeof v.reason === 'string' && v.reason !== '' ? { reason: v.reason } : {}),
      ...withWarnings,
    };
  }
  return 'handler returned an object without a boolean `allowed`, expected nothing or allow()/deny()';
}
