import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * A watch stream carried a line that is not a watch event: not JSON, or JSON without a known
 * `type` and an `object`. The stream errors with it rather than skipping the line, because a lost
 * event would silently corrupt every cache built on the stream.
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
    const excerpt = line.length > 120 ? `${line.slice(0, 120)}…` : line;
    super(`watch stream: ${message} at byte offset ${offset}: ${JSON.stringify(excerpt)}`, options);
    this.offset = offset;
    this.length = Buffer.byteLength(line);
    this.excerpt = excerpt;
  }
}
