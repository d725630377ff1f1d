import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/**
 * A watch stream sent a line longer than the decoder's limit (`maxWatchLineBytes`, default
 * {@link DEFAULT_MAX_WATCH_LINE_BYTES}) without ending it: the watch is abandoned rather than
 * buffering without bound. Carries no excerpt of the line.
 */
export class WatchLineTooLongError extends RxkubeError {
  static override readonly code: string = 'CLIENT_WATCH_LINE_TOO_LONG';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'WatchLineTooLongError';

  constructor(
    /** Byte offset, from the start of the response body, where the line begins. */
    readonly offset: number,
    /** The limit in bytes that the line exceeded. */
    readonly limitBytes: number,
  ) {
    super(`watch stream: the line at byte offset ${offset} is longer than ${limitBytes} bytes (maxWatchLineBytes); the watch is abandoned`);
  }
}

/**
 * Default longest watch line (one event) in bytes: 16 MiB, ten times the largest object etcd
 * stores by default (1.5 MiB), so only a broken or hostile stream reaches it.
 */
export const DEFAULT_MAX_WATCH_LINE_BYTES = 16 * 1024 * 1024;
