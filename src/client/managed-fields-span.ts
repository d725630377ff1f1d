// Finds `object.metadata.managedFields` in the bytes of one watch line, so that the line can be
// parsed without it (see `WatchLineDecoderOptions.omitManagedFields`). Works on Node.js `Buffer`s
// only (it jumps with the native `indexOf`); elsewhere it finds nothing and the line is parsed whole.

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

/** The part of Node.js's `Buffer` this scanner uses. */
interface ScanBuffer extends Uint8Array {
  indexOf(value: number | Uint8Array, byteOffset?: number): number;
}

const nodeBuffer = (globalThis as { Buffer?: { isBuffer(value: unknown): boolean; from(text: string): Uint8Array } }).Buffer;
const KEY = nodeBuffer?.from('"managedFields":');
const OBJECT = [0x6f, 0x62, 0x6a, 0x65, 0x63, 0x74]; // object
const METADATA = [0x6d, 0x65, 0x74, 0x61, 0x64, 0x61, 0x74, 0x61]; // metadata

/** A byte range `[start, end)` of a line. */
export interface ByteSpan {
  readonly start: number;
  readonly end: number;
}

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The bytes to cut from the line `buf[from, to)` so that it parses to the same value without
 * `object.metadata.managedFields`: the member `"managedFields":[…]` with one adjacent comma. Only a
 * member of exactly that object counts (a `managedFields` key anywhere else, or inside a string,
 * is left alone), and only an array or `null` value. `undefined` when there is none, when the
 * line is not a `Buffer`, or on anything unexpected: then the line is parsed whole (the caller's
 * transform still drops the field), so a wrong guess can only cost time, never change a value.
 */
export function managedFieldsSpan(buf: Uint8Array, from: number, to: number): ByteSpan | undefined {
  if (KEY === undefined || nodeBuffer === undefined || !nodeBuffer.isBuffer(buf)) return undefined;
  const bytes = buf as ScanBuffer;
  const at = bytes.indexOf(KEY, from);
  if (at < 0 || at + KEY.length >= to) return undefined;
  if (!isMetadataMember(bytes, from, at)) return undefined;
  let valueStart = at + KEY.length;
  while (valueStart < to && isSpace(bytes[valueStart])) valueStart++;
  const valueEnd = skipValue(bytes, valueStart, to);
  if (valueEnd < 0) return undefined;
  let after = valueEnd;
  while (after < to && isSpace(bytes[after])) after++;
  if (bytes[after] === COMMA) return { start: at, end: after + 1 };
  if (bytes[after] !== CLOSE_BRACE) return undefined;
  // The last member: cut the comma before it too (or nothing more when it is the only member).
  let before = at - 1;
  while (before > from && isSpace(bytes[before])) before--;
  if (bytes[before] === COMMA) return { start: before, end: valueEnd };
  return bytes[before] === OPEN_BRACE ? { start: at, end: valueEnd } : undefined;
}

/**
 * Whether the key string starting at `at` is a member name of `object.metadata` of the line's
 * top-level object: scans `[from, at)` tracking nesting, strings and, in the objects on that path,
 * which member the scanner is in.
 */
function isMetadataMember(bytes: Uint8Array, from: number, at: number): boolean {
  let depth = 0;
  /** Depth of the deepest open object on the path line → object → metadata (0: none yet). */
  let pathDepth = 0;
  /** In an object on the path: the next string is a member name. */
  let expectKey = false;
  /** The member being read in the deepest object on the path is the next step of the path. */
  let onStep = false;
  let i = from;
  while (i < at) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i, at);
      if (end < 0) return false;
      if (depth === pathDepth && expectKey) {
        onStep = (depth === 1 && equals(bytes, i + 1, end, OBJECT)) || (depth === 2 && equals(bytes, i + 1, end, METADATA));
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const enters = c === OPEN_BRACE && depth === pathDepth && (depth === 0 || onStep);
      depth++;
      if (enters) {
        pathDepth = depth;
        expectKey = true;
        onStep = false;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === pathDepth) return false; // left an object of the path: the rest is not in it
      depth--;
      if (depth < 0) return false;
      if (depth === pathDepth) onStep = false;
    } else if (c === COMMA) {
      if (depth === pathDepth) {
        expectKey = true;
        onStep = false;
      }
    } else if (c === COLON) {
      // a member's value follows; `onStep` says whether it is the path's next object
    }
    i++;
  }
  return depth === 3 && pathDepth === 3 && expectKey;
}

/**
 * Index of the quote closing the string that opens at `open`, or -1 before `limit`. A plain loop:
 * the strings of an object's head are short, and a native `indexOf` per string costs more.
 */
function stringEnd(bytes: Uint8Array, open: number, limit: number): number {
  for (let i = open + 1; i < limit; i++) {
    const c = bytes[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

function equals(bytes: Uint8Array, start: number, end: number, word: readonly number[]): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (bytes[start + k] !== word[k]) return false;
  return true;
}

/** End (exclusive) of the array or `null` starting at `start`, or -1. */
function skipValue(bytes: Uint8Array, start: number, to: number): number {
  if (bytes[start] === 0x6e) {
    // null
    return bytes[start + 1] === 0x75 && bytes[start + 2] === 0x6c && bytes[start + 3] === 0x6c && start + 4 <= to ? start + 4 : -1;
  }
  if (bytes[start] !== OPEN_BRACKET) return -1;
  let depth = 0;
  let i = start;
  while (i < to) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i, to);
      if (end < 0) return -1;
      i = end + 1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}
