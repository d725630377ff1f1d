/**
 * The credential values in use in this process (bearer tokens, basic-auth passwords, client keys,
 * tokens from exec plugins and token files), so that any text quoted from a server, and every log
 * line, can be searched for them and masked — pattern matching alone (`Bearer …`, JWTs) misses a
 * bare token a server echoes back.
 *
 * A `KubeConnection` remembers each credential as it starts using it. The set is bounded (the
 * {@link MAX_KNOWN_SECRETS} most recently used values), and values shorter than
 * {@link MIN_SECRET_LENGTH} are not remembered (masking every `abc` in every message would hide
 * more than it protects). Masking runs only when error text or a log line is built, never on a
 * successful request or watch event.
 */

/** The replacement text for a known credential value. */
export const SECRET_MASK = '[REDACTED]';
/** Shorter values are not remembered. */
export const MIN_SECRET_LENGTH = 4;
/** How many distinct values are remembered (least recently used forgotten first). */
export const MAX_KNOWN_SECRETS = 64;

const known = new Map<string, true>();
let longest = 0;

/** Remembers `value` as a credential in use (ignored when undefined or too short). Cheap: call it per request. */
export function rememberSecret(value: string | undefined): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
  if (known.has(value)) {
    // most recently used last
    known.delete(value);
    known.set(value, true);
    return;
  }
  known.set(value, true);
  if (known.size > MAX_KNOWN_SECRETS) {
    const oldest = known.keys().next().value as string;
    known.delete(oldest);
    longest = 0;
    for (const v of known.keys()) longest = Math.max(longest, v.length);
  }
  longest = Math.max(longest, value.length);
}

/** Forgets every remembered value (tests). */
export function forgetSecrets(): void {
  known.clear();
  longest = 0;
}

/** `text` with every remembered credential (and every value of `extra`) replaced by {@link SECRET_MASK}. */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  if (known.size === 0 && extra.length === 0) return text;
  let out = text;
  for (const secret of extra) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  }
  for (const secret of known.keys()) {
    if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  }
  return out;
}

/**
 * The start of `text` (at most `max` characters, then `…`) with credentials masked. Masks before
 * cutting, so a credential that straddles the cut does not leave its first characters behind;
 * looks only at the start of a long text.
 */
export function redactedExcerpt(text: string, max: number): string {
  if (text.length <= max) return redactSecrets(text);
  return `${redactSecrets(text.slice(0, max + longest)).slice(0, max)}…`;
}

/**
 * A copy of a JSON-like value (strings, arrays, plain objects) with credentials masked in every
 * string, keys included; the value itself when nothing had to change. Depth beyond 32 is cut.
 */
export function redactSecretsDeep<T>(value: T, extra: readonly string[] = [], depth = 0): T {
  if (typeof value === 'string') return redactSecrets(value, extra) as T;
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= 32) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v: unknown) => {
      const r = redactSecretsDeep(v, extra, depth + 1);
      if (r !== v) changed = true;
      return r;
    });
    return (changed ? out : value) as T;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = redactSecrets(k, extra);
    const r = redactSecretsDeep(v, extra, depth + 1);
    if (key !== k || r !== v) changed = true;
    out[key] = r;
  }
  return (changed ? out : value) as T;
}

/**
 * An error cause safe to keep on an error that may be printed: the cause itself when none of its
 * text holds a credential, else a plain `Error` with the same name, code and masked message and
 * stack (a `JSON.parse` error quotes the start of the text it failed on; Node's HTTP parser
 * errors carry the raw bytes).
 */
export function redactCause(cause: unknown, extra: readonly string[] = []): unknown {
  if (typeof cause === 'string') return redactSecrets(cause, extra);
  if (!(cause instanceof Error)) return cause;
  const texts = [cause.message, cause.stack ?? ''];
  for (const v of Object.values(cause)) if (typeof v === 'string') texts.push(v);
  const raw = (cause as { rawPacket?: unknown }).rawPacket;
  if (raw !== undefined) texts.push(raw instanceof Uint8Array ? latin1(raw) : String(raw));
  if (texts.every((t) => redactSecrets(t, extra) === t)) return cause;
  const copy = new Error(redactSecrets(cause.message, extra));
  copy.name = cause.name;
  copy.stack = redactSecrets(cause.stack ?? '', extra);
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  return copy;
}

/** Bytes as latin1 text (one character per byte), as `Buffer#toString('latin1')` without `Buffer`. */
function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
}
