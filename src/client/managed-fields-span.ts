// Finds `object.metadata.managedFields` in the bytes of one watch line, so that the line can be
// parsed without it (see `WatchLineDecoderOptions.omitManagedFields`). Works on Node.js `Buffer`s
// only (the decoder's fast path); elsewhere it finds nothing and the line is parsed whole.

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

const nodeBuffer = (globalThis as { Buffer?: { isBuffer(value: unknown): boolean } }).Buffer;
const OBJECT = [0x6f, 0x62, 0x6a, 0x65, 0x63, 0x74]; // object
const METADATA = [0x6d, 0x65, 0x74, 0x61, 0x64, 0x61, 0x74, 0x61]; // metadata
const MANAGED_FIELDS = [0x6d, 0x61, 0x6e, 0x61, 0x67, 0x65, 0x64, 0x46, 0x69, 0x65, 0x6c, 0x64, 0x73]; // managedFields

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
 *
 * One pass from the start of the line along the path: the members of the line's object up to
 * `object`, of that up to `metadata`, of that up to `managedFields` (each other member's value
 * skipped as a whole), then the array. No byte after the array is read, and none twice.
 */
export function managedFieldsSpan(buf: Uint8Array, from: number, to: number): ByteSpan | undefined {
  if (nodeBuffer === undefined || !nodeBuffer.isBuffer(buf)) return undefined;
  let i = skipSpaces(buf, from, to);
  if (i >= to || buf[i] !== OPEN_BRACE) return undefined;
  i = memberValue(buf, i + 1, to, OBJECT);
  if (i < 0 || buf[i] !== OPEN_BRACE) return undefined;
  i = memberValue(buf, i + 1, to, METADATA);
  if (i < 0 || buf[i] !== OPEN_BRACE) return undefined;
  const valueStart = memberValue(buf, i + 1, to, MANAGED_FIELDS);
  if (valueStart < 0) return undefined;
  const valueEnd = buf[valueStart] === OPEN_BRACKET ? nestedEnd(buf, valueStart, to) : nullEnd(buf, valueStart, to);
  if (valueEnd < 0) return undefined;
  // Back from the value to its key: spaces, the colon, spaces, `"managedFields"` (matched byte for
  // byte, so it has no escapes and is exactly that long).
  let k = valueStart - 1;
  while (isSpace(buf[k])) k--;
  k--;
  while (isSpace(buf[k])) k--;
  const keyStart = k - MANAGED_FIELDS.length - 1;
  const after = skipSpaces(buf, valueEnd, to);
  if (after < to && buf[after] === COMMA) return { start: keyStart, end: after + 1 };
  if (after >= to || buf[after] !== CLOSE_BRACE) return undefined;
  // The last member: cut the comma before it too (or nothing more when it is the only member).
  let before = keyStart - 1;
  while (before > from && isSpace(buf[before])) before--;
  if (buf[before] === COMMA) return { start: before, end: valueEnd };
  return buf[before] === OPEN_BRACE ? { start: keyStart, end: valueEnd } : undefined;
}

function skipSpaces(bytes: Uint8Array, i: number, to: number): number {
  while (i < to && isSpace(bytes[i])) i++;
  return i;
}

/**
 * In the members of an object starting at `i` (just after its `{`): the index of the first byte
 * of the value of the member named `name`, or -1 when the object has no such member or is not
 * well-formed JSON up to it. Values of other members are skipped whole.
 */
function memberValue(bytes: Uint8Array, i: number, to: number, name: readonly number[]): number {
  for (;;) {
    i = skipSpaces(bytes, i, to);
    if (i >= to || bytes[i] !== QUOTE) return -1;
    const end = stringEnd(bytes, i, to);
    if (end < 0) return -1;
    const found = equals(bytes, i + 1, end, name);
    i = skipSpaces(bytes, end + 1, to);
    if (i >= to || bytes[i] !== COLON) return -1;
    i = skipSpaces(bytes, i + 1, to);
    if (i >= to) return -1;
    if (found) return i;
    i = valueEnd(bytes, i, to);
    if (i < 0) return -1;
    i = skipSpaces(bytes, i, to);
    if (i >= to || bytes[i] !== COMMA) return -1;
    i++;
  }
}

/** End (exclusive) of the JSON value starting at `start`, or -1. */
function valueEnd(bytes: Uint8Array, start: number, to: number): number {
  const c = bytes[start];
  if (c === QUOTE) {
    const end = stringEnd(bytes, start, to);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return nestedEnd(bytes, start, to);
  // A number, `true`, `false` or `null`: up to the next delimiter.
  let i = start;
  while (i < to) {
    const d = bytes[i];
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) return i;
    if (d === QUOTE || d === OPEN_BRACE || d === OPEN_BRACKET || d === COLON) return -1;
    i++;
  }
  return -1;
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

/** End (exclusive) of the `null` starting at `start`, or -1. */
function nullEnd(bytes: Uint8Array, start: number, to: number): number {
  return start + 4 <= to && bytes[start] === 0x6e && bytes[start + 1] === 0x75 && bytes[start + 2] === 0x6c && bytes[start + 3] === 0x6c ? start + 4 : -1;
}

/** End (exclusive) of the object or array starting at `start`, or -1. */
function nestedEnd(bytes: Uint8Array, start: number, to: number): number {
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
