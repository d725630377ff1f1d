import { readFileSync } from 'node:fs';
import type { SchedulerLike } from 'rxjs';
import { rememberSecret } from '../logging/known-secrets.js';
import { TokenFileError } from './credential-errors.js';

/** How often a token file is read again, in ms (client-go's cached token source: one minute). */
export const TOKEN_FILE_REFRESH_MS = 60_000;

/** Characters a bearer token may not contain (they would make an invalid `Authorization` header). */
const NOT_HEADER_SAFE = /[^\t\x20-\x7e\x80-\xff]/;

/** Whether `token` can be sent in an `Authorization` header. */
export function isHeaderSafe(token: string): boolean {
  return !NOT_HEADER_SAFE.test(token);
}

/**
 * A bearer token read from a file (kubeconfig `token-file`, the projected service-account token)
 * and read again every {@link TOKEN_FILE_REFRESH_MS} on `scheduler`'s clock, so a rotated token is
 * picked up. Surrounding whitespace (the usual trailing newline) is trimmed. When a re-read fails
 * the last good token is kept (as client-go does) and the file is tried again on the next request.
 */
export class TokenFileSource {
  private cached: string | undefined;
  private readAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly file: string,
    private readonly scheduler: SchedulerLike,
    private readonly refreshMs = TOKEN_FILE_REFRESH_MS,
  ) {}

  /** The current token. @throws TokenFileError naming the file when there is no usable token. */
  token(): string {
    const now = this.scheduler.now();
    if (this.cached !== undefined && now - this.readAt < this.refreshMs) return this.cached;
    try {
      const token = readToken(this.file);
      this.cached = token;
      this.readAt = now;
      rememberSecret(token);
      return token;
    } catch (err) {
      if (this.cached !== undefined) return this.cached;
      throw err;
    }
  }
}

/** Reads and checks one token file. @throws TokenFileError */
export function readToken(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw new TokenFileError(file, code === 'ENOENT' ? 'does not exist' : `cannot be read (${String(code ?? cause)})`, { cause });
  }
  return checkToken(text, file);
}

/** `text` trimmed, as a bearer token. @throws TokenFileError (naming `file`) when empty or not header-safe. */
export function checkToken(text: string, file: string): string {
  const token = text.trim();
  if (token === '') throw new TokenFileError(file, 'is empty');
  if (NOT_HEADER_SAFE.test(token)) throw new TokenFileError(file, 'holds characters that are not allowed in an HTTP header (a binary file?)');
  return token;
}
