import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { utf8Length } from './bytes.js';
import { redactCause, redactedExcerpt, redactSecrets } from '../logging/known-secrets.js';

/**
 * A watch stream carried a line that is not a watch event: not JSON, or JSON without a known
 * `type` and an `object`. The stream errors with it rather than skipping the line, because a lost
 * event would silently corrupt every cache built on the stream. Credentials in use are masked in
 * the message, the excerpt and `cause`.
 */
export class WatchDecodeError extends RxkubeError {
  static override readonly code: string = 'CLIENT_WATCH_DECODE_FAILED';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'WatchDecodeError';
  /** Byte offset, from the start of the response body, where the bad line begins. */
  readonly offset: number;
  /** Length of the bad line in bytes (without its newline). */
  readonly length: number;
  /** The start of the bad line (at most 120 characters), for diagnostics. */
  readonly excerpt: string;

  constructor(message: string, offset: number, line: string, options: { cause?: unknown } = {}) {
    const excerpt = redactedExcerpt(line, 120);
    super(`watch stream: ${redactSecrets(message)} at byte offset ${offset}: ${JSON.stringify(excerpt)}`, options.cause === undefined ? {} : { cause: redactCause(options.cause) });
    this.offset = offset;
    this.length = utf8Length(line);
    this.excerpt = excerpt;
  }
}
