import { Observable, type OperatorFunction } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { WatchEvent } from '../api/list-watcher.js';
import { redactSecretsDeep } from '../logging/known-secrets.js';
import { concatBytes, scannable, utf8Text } from './bytes.js';
import { managedFieldsSpan } from './managed-fields-span.js';
import { WatchDecodeError } from './watch-decode-error.js';
import { DEFAULT_MAX_WATCH_LINE_BYTES, WatchLineTooLongError } from './watch-line-too-long-error.js';

const NEWLINE = 0x0a;
const EVENT_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Options of {@link WatchLineDecoder} and {@link decodeWatchLines}. */
export interface WatchLineDecoderOptions {
  /**
   * Longest line (one event, without its newline) in bytes; a longer one throws
   * {@link WatchLineTooLongError} as soon as that many bytes of it have arrived, so a line that
   * never ends is not buffered without bound. Default {@link DEFAULT_MAX_WATCH_LINE_BYTES} (16 MiB).
   */
  readonly maxLineBytes?: number;
  /**
   * Parse each line without `object.metadata.managedFields` (the member is cut from the bytes
   * before `JSON.parse`, so its objects are never built). For consumers that would drop the field
   * anyway, as an informer with its default transform does: that saves a good part of the parse
   * and of the garbage of every event. Only that exact member is cut (never a `managedFields` key
   * elsewhere or inside a string); a line the scanner is unsure about is parsed whole. Node.js
   * only (elsewhere lines are always parsed whole). Default `false`.
   */
  readonly omitManagedFields?: boolean;
}

/**
 * Incremental decoder for a watch response body: newline-delimited JSON, one `{type, object}` per
 * line, in arbitrary chunks. Handles a line split across any number of chunks, many lines in one
 * chunk, a final line without newline, CRLF and blank lines. A malformed line throws a
 * {@link WatchDecodeError} naming its byte offset; a line longer than `maxLineBytes` a
 * {@link WatchLineTooLongError}. Credentials in use are masked in `ERROR` events' objects and in
 * errors.
 *
 * Hot path: complete lines inside a chunk are decoded straight from the chunk without copying;
 * only the tail of a chunk is kept until its newline arrives.
 */
export class WatchLineDecoder<T extends KubeObject = KubeObject> {
  /** Pieces of an incomplete line, in order. */
  private pending: Uint8Array[] = [];
  private pendingLength = 0;
  /** Byte offset (in the whole body) of the first byte not yet consumed as a complete line. */
  private lineStart = 0;
  private readonly maxLineBytes: number;
  private readonly omitManagedFields: boolean;

  constructor(options: WatchLineDecoderOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_WATCH_LINE_BYTES;
    this.omitManagedFields = options.omitManagedFields === true;
  }

  /** Decodes every complete line in `chunk`, calling `emit` for each event in order. */
  push(chunk: Uint8Array, emit: (event: WatchEvent<T>) => void): void {
    const buf = scannable(chunk);
    let start = 0;
    let nl = buf.indexOf(NEWLINE, 0);
    if (nl >= 0 && this.pendingLength > 0) {
      if (this.pendingLength + nl > this.maxLineBytes) this.tooLong(this.lineStart);
      this.pending.push(buf.subarray(0, nl));
      const line = concatBytes(this.pending, this.pendingLength + nl);
      this.pending = [];
      this.pendingLength = 0;
      this.decode(line, 0, line.length, emit);
      start = nl + 1;
      nl = buf.indexOf(NEWLINE, start);
    }
    while (nl >= 0) {
      if (nl - start > this.maxLineBytes) this.tooLong(this.lineStart);
      this.decode(buf, start, nl, emit);
      start = nl + 1;
      nl = buf.indexOf(NEWLINE, start);
    }
    if (start < buf.length) {
      this.pending.push(buf.subarray(start));
      this.pendingLength += buf.length - start;
      if (this.pendingLength > this.maxLineBytes) this.tooLong(this.lineStart);
    }
  }

  /** Drops what was buffered and throws: the stream is not usable past a line this long. */
  private tooLong(offset: number): never {
    this.pending = [];
    this.pendingLength = 0;
    throw new WatchLineTooLongError(offset, this.maxLineBytes);
  }

  /** Ends the body: decodes a final line that had no newline. */
  end(emit: (event: WatchEvent<T>) => void): void {
    if (this.pendingLength === 0) return;
    const line = concatBytes(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    this.decode(line, 0, line.length, emit);
  }

  private decode(buf: Uint8Array, from: number, to: number, emit: (event: WatchEvent<T>) => void): void {
    const offset = this.lineStart;
    // The next line starts after this one and its newline (end() has no newline; harmless).
    this.lineStart += to - from + 1;
    if (isBlank(buf, from, to)) return;
    const cut = this.omitManagedFields ? managedFieldsSpan(buf, from, to) : undefined;
    // Both pieces end at ASCII bytes (a quote, a comma, a bracket): no character is split.
    const parsed = cut === undefined ? utf8Text(buf, from, to) : utf8Text(buf, from, cut.start) + utf8Text(buf, cut.end, to);
    let value: unknown;
    try {
      value = JSON.parse(parsed);
    } catch (cause) {
      throw new WatchDecodeError('line is not JSON', offset, cut === undefined ? parsed : utf8Text(buf, from, to), { cause });
    }
    const text = parsed;
    if (typeof value !== 'object' || value === null) {
      throw new WatchDecodeError('line is not a watch event object', offset, text);
    }
    const { type, object } = value as { type?: unknown; object?: unknown };
    if (typeof type !== 'string' || !EVENT_TYPES.has(type)) {
      throw new WatchDecodeError(`unknown watch event type ${JSON.stringify(type)}`, offset, text);
    }
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      throw new WatchDecodeError(`watch event ${type} has no object`, offset, text);
    }
    // An ERROR event's Status is server text that ends up in errors and logs: mask credentials in
    // it (only ERROR events pay for this).
    emit((type === 'ERROR' ? { type, object: redactSecretsDeep(object) } : value) as WatchEvent<T>);
  }
}

function isBlank(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

/**
 * Turns a watch response body (a stream of byte chunks) into watch events.
 *
 * ```
 * source:  --"{…a…}\n{…b"--"…}\n{…c…}"--|
 * result:  --a-------------b-----------(c|)
 * ```
 *
 * A malformed line errors the result with {@link WatchDecodeError} (the byte offset of the line
 * in the body), a line longer than `maxLineBytes` with {@link WatchLineTooLongError}; `ERROR`
 * events pass through as events.
 */
export function decodeWatchLines<T extends KubeObject = KubeObject>(options: WatchLineDecoderOptions = {}): OperatorFunction<Uint8Array, WatchEvent<T>> {
  return (source) =>
    new Observable<WatchEvent<T>>((subscriber) => {
      const decoder = new WatchLineDecoder<T>(options);
      const emit = (event: WatchEvent<T>): void => subscriber.next(event);
      return source.subscribe({
        next(chunk) {
          try {
            decoder.push(chunk, emit);
          } catch (err) {
            subscriber.error(err);
          }
        },
        error(err: unknown) {
          subscriber.error(err);
        },
        complete() {
          try {
            decoder.end(emit);
          } catch (err) {
            subscriber.error(err);
            return;
          }
          subscriber.complete();
        },
      });
    });
}
