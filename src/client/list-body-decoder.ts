import type { KubeObject } from '../api/kube-object.js';
import type { ListPage } from '../api/list-watcher.js';
import { redactedExcerpt } from '../logging/known-secrets.js';
import { concatBytes, utf8Bytes, utf8Text } from './bytes.js';
import { ResponseDecodeError } from './response-decode-error.js';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

/** A list's own metadata, read before its items have arrived. */
export interface ListHead {
  readonly resourceVersion: string;
  /** Continue token; absent on the last page. */
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/**
 * How a {@link ListBodyDecoder} turns the body into items: `'whole'` parses the body with one
 * `JSON.parse` at its end (the head is still read early); `'items'` parses each item as soon as
 * its last byte arrived, so that parsing overlaps the transfer.
 */
export type ListDecodeMode = 'whole' | 'items';

/** In 'whole' mode, stop looking for the head this far into the body. */
const HEAD_SCAN_LIMIT = 1 << 20;

/**
 * Incremental decoder of one list response body (`{"kind":…,"apiVersion":…,"metadata":{…},
 * "items":[…]}`) arriving in chunks.
 *
 * - `onHead` is called as soon as the list's `metadata` object is complete. kube-apiserver (and
 *   the embedded server) write it before the items, so a page's continue token is known from its
 *   first bytes and the next page can be requested while this one is still arriving. When
 *   `metadata` comes after the items there is no early head.
 * - `end()` returns the page. In `'whole'` mode the body is parsed there; in `'items'` mode every
 *   item was parsed as it completed and `end()` only assembles the page.
 *
 * A body that is not JSON, not an object, or whose `items` is not an array fails with
 * {@link ResponseDecodeError}, as the non-streaming path does.
 */
export class ListBodyDecoder<T extends KubeObject = KubeObject> {
  /** Kept body chunks: all of them in 'whole' mode; in 'items' mode until the head was parsed. */
  private chunks: Uint8Array[] = [];
  private length = 0;
  private scanning = true;
  // scanner state, carried from chunk to chunk
  private depth = 0;
  private inString = false;
  private escape = false;
  private expectKey = false;
  private capturingKey = false;
  private key = '';
  /** The top-level key whose value is being read. */
  private valueKey = '';
  private topLevel = false;
  private metaStart = -1;
  private head: ListHead | undefined;
  private inItems = false;
  /** 'items' mode: an item is open; its bytes so far (from earlier chunks) are in `carry`. */
  private itemOpen = false;
  private carry: Uint8Array[] = [];
  private carryLength = 0;
  private readonly items: T[] = [];

  private mode: ListDecodeMode;

  /**
   * `streamLastPage`: in 'whole' mode, when the head shows no continue token (a single-page list,
   * or the last page), switch to 'items' mode at the items: the page is then parsed item by item
   * as it arrives and its raw bytes are never held whole (about half the peak memory of a large
   * unpaged list).
   */
  constructor(
    mode: ListDecodeMode,
    private readonly path: string,
    private readonly onHead: (head: ListHead) => void = () => undefined,
    private readonly streamLastPage = false,
  ) {
    this.mode = mode;
  }

  /** Feeds the next chunk of the body. */
  push(chunk: Uint8Array): void {
    const base = this.length;
    if (this.mode === 'whole' || this.head === undefined) this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.scanning) this.scan(chunk, base);
  }

  /** The body ended: the page. */
  end(): ListPage<T> {
    if (this.mode === 'whole') return this.wholePage();
    if (this.depth !== 0 || this.inString || !this.topLevel) {
      if (!this.topLevel) throw this.fail('list response is not an object');
      throw this.fail('response body is not JSON: the list body ends early');
    }
    return { items: this.items, ...(this.head ?? { resourceVersion: '' }) };
  }

  /**
   * 'whole' mode, instead of `end()`: the body as it came, unparsed, with its head — or
   * `undefined` when no head was read before the items (then call `end()`). Parse such bodies
   * together with {@link parseListBodies}.
   */
  endUnparsed(): { readonly body: Uint8Array; readonly head: ListHead } | undefined {
    if (this.mode !== 'whole' || this.head === undefined) return undefined;
    const body = this.chunks.length === 1 ? (this.chunks[0] as Uint8Array) : concatBytes(this.chunks, this.length);
    this.chunks = [];
    return { body, head: this.head };
  }

  private wholePage(): ListPage<T> {
    const text = utf8Text(concatBytes(this.chunks, this.length));
    this.chunks = [];
    if (text.trim() === '') throw this.fail('list response is not an object');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new ResponseDecodeError('GET', this.path, `response body is not JSON: ${JSON.stringify(redactedExcerpt(text, 80))}`, { cause });
    }
    return pageOf<T>(body, this.path);
  }

  private fail(detail: string, cause?: unknown): ResponseDecodeError {
    return new ResponseDecodeError('GET', this.path, detail, cause === undefined ? {} : { cause });
  }

  /** The metadata object ends at body offset `end` (exclusive): parse it, report the head. */
  private metadataEnds(end: number): void {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Uint8Array) : concatBytes(this.chunks);
    let meta: unknown;
    try {
      meta = JSON.parse(utf8Text(all, this.metaStart, end));
    } catch (cause) {
      throw this.fail('response body is not JSON: bad list metadata', cause);
    }
    this.head = headOf(meta);
    if (this.mode === 'items') this.chunks = [];
    this.onHead(this.head);
  }

  /** Scans `buf` (body offset `base`) for the metadata object and, in 'items' mode, the items. */
  private scan(buf: Uint8Array, base: number): void {
    let itemsMode = this.mode === 'items';
    let limit = itemsMode ? buf.length : Math.min(buf.length, Math.max(0, HEAD_SCAN_LIMIT - base));
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    let capturing = this.capturingKey;
    let itemStart = this.itemOpen ? 0 : -1;
    for (let i = 0; i < limit; i++) {
      const c = buf[i] as number;
      if (inString) {
        if (escape) escape = false;
        else if (c === BACKSLASH) escape = true;
        else if (c === QUOTE) inString = capturing = false;
        else if (capturing) this.key += String.fromCharCode(c);
        continue;
      }
      if (c === QUOTE) {
        inString = true;
        if (depth === 1) {
          if (this.expectKey) {
            capturing = true;
            this.key = '';
          } else if (this.valueKey === 'items') {
            throw this.fail('list response without an items array');
          }
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth += 1;
        if (depth === 3) {
          if (this.inItems) itemStart = i;
        } else if (depth === 1) {
          if (c !== OPEN_BRACE) throw this.fail('list response is not an object');
          this.topLevel = true;
          this.expectKey = true;
        } else if (depth === 2) {
          if (this.valueKey === 'metadata' && c === OPEN_BRACE && this.head === undefined) this.metaStart = base + i;
          else if (this.valueKey === 'items') {
            if (c !== OPEN_BRACKET) throw this.fail('list response without an items array');
            this.inItems = true;
            if (!itemsMode) {
              if (!this.streamLastPage || this.head === undefined || this.head.continue !== undefined) return this.stop(depth, inString, escape);
              // the last (or only) page, its head read: parse its items as they come
              this.mode = 'items';
              itemsMode = true;
              limit = buf.length;
              this.chunks = [];
            }
          }
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 2) {
          if (itemStart !== -1) {
            this.item(buf, itemStart, i + 1);
            itemStart = -1;
          }
        } else if (depth === 1) {
          if (this.inItems) this.inItems = false;
          else if (this.metaStart >= 0 && this.head === undefined) {
            this.metadataEnds(base + i + 1);
            const head = this.head as ListHead | undefined; // set by metadataEnds
            const streamOn = this.streamLastPage && head !== undefined && head.continue === undefined;
            if (!itemsMode && !streamOn) return this.stop(depth, inString, escape);
          }
        } else if (depth < 0) {
          throw this.fail('response body is not JSON: unbalanced list body');
        }
      } else if (depth === 1) {
        if (c === COLON) {
          this.expectKey = false;
          this.valueKey = this.key;
        } else if (c === COMMA) {
          this.expectKey = true;
          this.valueKey = '';
        }
      } else if (depth === 0 && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        throw this.fail('list response is not an object');
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    this.capturingKey = capturing;
    if (itemStart !== -1) {
      // the item goes on in the next chunk
      const piece = itemStart === 0 ? buf : buf.subarray(itemStart);
      this.carry.push(piece);
      this.carryLength += piece.length;
      this.itemOpen = true;
    }
    if (!itemsMode && base + buf.length >= HEAD_SCAN_LIMIT) this.scanning = false;
  }

  /** Whole mode: the head is read (or cannot come first); the rest of the body is only kept. */
  private stop(depth: number, inString: boolean, escape: boolean): void {
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    this.scanning = false;
  }

  /** 'items' mode: an item ends at `end` (exclusive) in `buf`, starting at `start` there or in `carry`. */
  private item(buf: Uint8Array, start: number, end: number): void {
    let text: string;
    if (this.itemOpen) {
      this.carry.push(buf.subarray(0, end));
      text = utf8Text(concatBytes(this.carry, this.carryLength + end));
      this.carry = [];
      this.carryLength = 0;
      this.itemOpen = false;
    } else {
      text = utf8Text(buf, start, end);
    }
    try {
      this.items.push(JSON.parse(text) as T);
    } catch (cause) {
      throw this.fail(`response body is not JSON: bad list item ${this.items.length}`, cause);
    }
  }
}

function headOf(meta: unknown): ListHead {
  const m = (typeof meta === 'object' && meta !== null ? meta : {}) as { resourceVersion?: unknown; continue?: unknown; remainingItemCount?: unknown };
  return {
    resourceVersion: typeof m.resourceVersion === 'string' ? m.resourceVersion : '',
    ...(typeof m.continue === 'string' && m.continue !== '' ? { continue: m.continue } : {}),
    ...(typeof m.remainingItemCount === 'number' ? { remainingItemCount: m.remainingItemCount } : {}),
  };
}

/** A parsed list body as a page; fields of the wrong type are dropped, a body without an items array is refused. */
export function pageOf<T extends KubeObject>(body: unknown, path: string): ListPage<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ResponseDecodeError('GET', path, 'list response is not an object');
  const items: unknown = (body as { items?: unknown }).items;
  // An empty list may come without `items` (kube-apiserver omits an empty array in some versions).
  if (items !== undefined && items !== null && !Array.isArray(items)) throw new ResponseDecodeError('GET', path, 'list response without an items array');
  return { items: (items ?? []) as T[], ...headOf((body as { metadata?: unknown }).metadata) };
}

const OPEN = utf8Bytes('[');
const SEP = utf8Bytes(',');
const CLOSE = utf8Bytes(']');

/**
 * Parses list bodies kept unparsed ({@link ListBodyDecoder.endUnparsed}) with one `JSON.parse` of
 * `[body, body, …]`, and returns their pages in order. Empties `bodies` (so that the raw bytes can
 * be freed while the parse runs).
 *
 * One parse of everything at the end costs about half the CPU of parsing page after page as the
 * pages arrive (measured at 100k pods): V8 builds one large object graph far more cheaply than it
 * grows it in steps while I/O interleaves (see BENCHMARKS.md).
 */
export function parseListBodies<T extends KubeObject>(bodies: Uint8Array[], path: string): Array<ListPage<T>> {
  const single = bodies.length === 1;
  const text = joinedText(bodies);
  let lists: unknown;
  try {
    lists = JSON.parse(text);
  } catch (cause) {
    throw new ResponseDecodeError('GET', path, `response body is not JSON${single ? '' : ' (one of the list pages)'}`, { cause });
  }
  return single ? [pageOf<T>(lists, path)] : (lists as unknown[]).map((list) => pageOf<T>(list, path));
}

/**
 * One body as text, or `[body,body,…]`; empties `bodies`. A function of its own so that no
 * intermediate byte array outlives it: during the parse only the text is held.
 */
function joinedText(bodies: Uint8Array[]): string {
  if (bodies.length === 1) {
    const body = bodies[0] as Uint8Array;
    bodies.length = 0;
    return utf8Text(body);
  }
  const parts: Uint8Array[] = [OPEN];
  bodies.forEach((b, i) => {
    if (i > 0) parts.push(SEP);
    parts.push(b);
  });
  parts.push(CLOSE);
  bodies.length = 0;
  return utf8Text(concatBytes(parts));
}
