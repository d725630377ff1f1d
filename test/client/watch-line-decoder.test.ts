import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { WatchDecodeError } from '../../src/client/watch-decode-error.js';
import { decodeWatchLines, WatchLineDecoder } from '../../src/client/watch-line-decoder.js';
import { watchEventError } from '../../src/client/watch-event-error.js';
import { ApiError, isGone } from '../../src/client/api-error.js';
import { marbles } from '../helpers/marbles.js';

const cm = (name: string, rv: string): UnstructuredObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: rv },
  data: { text: 'héllo → ✓' },
});
const ev = (type: 'ADDED' | 'MODIFIED' | 'DELETED', name: string, rv: string): WatchEvent => ({ type, object: cm(name, rv) });
const line = (e: unknown): string => `${JSON.stringify(e)}\n`;
const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Decodes `chunks` through the operator and returns events, or the error. */
async function decode(chunks: readonly Uint8Array[]): Promise<WatchEvent[]> {
  return lastValueFrom(from(chunks).pipe(decodeWatchLines(), toArray()));
}

/** Splits `buf` at the given cut points (positions, any order, duplicates allowed). */
function cut(buf: Buffer, points: readonly number[]): Buffer[] {
  const sorted = [...new Set(points.map((p) => p % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of sorted) {
    out.push(buf.subarray(prev, p));
    prev = p;
  }
  out.push(buf.subarray(prev));
  return out;
}

describe('WatchLineDecoder', () => {
  const events: [WatchEvent, WatchEvent, WatchEvent] = [ev('ADDED', 'a', '1'), ev('MODIFIED', 'a', '2'), ev('DELETED', 'a', '3')];
  const body = bytes(events.map(line).join(''));

  it('decodes several lines in one chunk', async () => {
    expect(await decode([body])).toEqual(events);
  });

  it('joins a line split across chunks, even inside a multi-byte character', async () => {
    const at = body.indexOf(bytes('✓')) + 1; // in the middle of the 3-byte UTF-8 sequence
    expect(await decode([body.subarray(0, at), body.subarray(at)])).toEqual(events);
  });

  it('decodes a body fed one byte at a time', async () => {
    const chunks = [...body].map((b) => Uint8Array.of(b));
    expect(await decode(chunks)).toEqual(events);
  });

  it('decodes a final line without newline at the end of the body', async () => {
    const noNewline = bytes(`${line(events[0])}${JSON.stringify(events[1])}`);
    expect(await decode([noNewline])).toEqual(events.slice(0, 2));
  });

  it('accepts CRLF line ends and skips blank lines', async () => {
    const text = `\r\n${JSON.stringify(events[0])}\r\n\n  \n${JSON.stringify(events[1])}\r\n`;
    expect(await decode([bytes(text)])).toEqual(events.slice(0, 2));
  });

  it('gives the same events for every way of chunking the body (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (points) => {
        expect(await decode(cut(body, points))).toEqual(events);
      }),
      { numRuns: 300 },
    );
  });

  it('errors with WatchDecodeError naming the byte offset of a line that is not JSON', async () => {
    const good = line(events[0]);
    const text = `${good}{"type":"ADDED","object":{\n${line(events[1])}`;
    const buf = bytes(text);
    const seen: WatchEvent[] = [];
    const err = await lastValueFrom(from(cut(buf, [5, good.length + 3, good.length + 20])).pipe(decodeWatchLines())).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WatchDecodeError);
    const decodeError = err as WatchDecodeError;
    expect(decodeError.offset).toBe(Buffer.byteLength(good));
    expect(decodeError.message).toContain(`byte offset ${Buffer.byteLength(good)}`);
    expect(decodeError.excerpt).toBe('{"type":"ADDED","object":{');
    expect(decodeError.cause).toBeInstanceOf(SyntaxError);
    // The good event before the bad line was delivered first.
    const decoder = new WatchLineDecoder();
    expect(() => decoder.push(buf, (e) => seen.push(e))).toThrow(WatchDecodeError);
    expect(seen).toEqual([events[0]]);
  });

  it('rejects an unfinished final line at the end of the body', async () => {
    const good = line(events[0]);
    await expect(decode([bytes(`${good}{"type":"ADD`)])).rejects.toMatchObject({
      name: 'WatchDecodeError',
      offset: Buffer.byteLength(good),
    });
  });

  it('rejects JSON that is not a watch event', async () => {
    await expect(decode([bytes('[1,2]\n')])).rejects.toBeInstanceOf(WatchDecodeError);
    await expect(decode([bytes('42\n')])).rejects.toThrow(/not a watch event/);
    await expect(decode([bytes('{"type":"UPSERTED","object":{}}\n')])).rejects.toThrow(/unknown watch event type "UPSERTED"/);
    await expect(decode([bytes('{"type":"ADDED"}\n')])).rejects.toThrow(/ADDED has no object/);
  });

  it('passes ERROR events through with their Status, and watchEventError turns them into ApiError', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' };
    const [errorEvent, after] = await decode([bytes(line({ type: 'ERROR', object: status }) + line(events[0]))]);
    expect(errorEvent).toEqual({ type: 'ERROR', object: status });
    expect(after).toEqual(events[0]);
    const apiError = watchEventError(errorEvent!);
    expect(apiError).toBeInstanceOf(ApiError);
    expect(apiError).toMatchObject({ statusCode: 410, code: 'API_EXPIRED', reason: 'Expired', status });
    expect(isGone(apiError)).toBe(true);
    expect(watchEventError(events[0]!)).toBeUndefined();
  });

  it('passes BOOKMARK events through', async () => {
    const bookmark = { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '99' } } };
    expect(await decode([bytes(line(bookmark))])).toEqual([bookmark]);
  });

  it(
    'emits each event as soon as its newline arrives, in virtual time',
    marbles((m) => {
      const [a, b, c] = events.map((e) => JSON.stringify(e));
      const chunks = {
        p: bytes(`${a}\n${b!.slice(0, 10)}`),
        q: bytes(`${b!.slice(10)}\n${c}`),
      };
      const source = m.cold('-p--q--|', chunks);
      m.expect(source.pipe(decodeWatchLines())).toBeObservable('-a--b--(c|)', { a: events[0], b: events[1], c: events[2] });
    }),
  );

  it(
    'errors the stream, not silently, on a bad line mid-stream',
    marbles((m) => {
      const source = m.cold('-p--q--r|', { p: bytes(line(events[0])), q: bytes('oops\n'), r: bytes(line(events[1])) });
      const offset = Buffer.byteLength(line(events[0]));
      m.expect(source.pipe(decodeWatchLines())).toBeObservable(
        '-a--#',
        { a: events[0] },
        new WatchDecodeError('line is not JSON', offset, 'oops'),
      );
    }),
  );

  it(
    'passes a source error through and unsubscribes the source when the result errors',
    marbles((m) => {
      const source = m.cold('-p--q--r|', { p: bytes('x\n'), q: bytes(''), r: bytes('') });
      m.expect(source.pipe(decodeWatchLines())).toBeObservable('-#', undefined, new WatchDecodeError('line is not JSON', 0, 'x'));
      m.expect(source).toHaveSubscriptions('^!');
      const failing = m.cold('-p-#', { p: bytes(line(events[0])) }, new Error('reset'));
      m.expect(failing.pipe(decodeWatchLines())).toBeObservable('-a-#', { a: events[0] }, new Error('reset'));
    }),
  );

  it('stays linear for a long line in many small chunks and for many lines', () => {
    // A 4 MB object in 40,000 chunks: re-joining the pending bytes per chunk would be quadratic.
    const big = line({ type: 'ADDED', object: { metadata: { name: 'big' }, data: { blob: 'x'.repeat(4_000_000) } } });
    const buf = bytes(big);
    const decoder = new WatchLineDecoder();
    let n = 0;
    let t = performance.now();
    for (let o = 0; o < buf.length; o += 100) decoder.push(buf.subarray(o, o + 100), () => n++);
    expect(n).toBe(1);
    expect(performance.now() - t).toBeLessThan(2000);
    // 50,000 small events in 16 KiB chunks: far above the tens of thousands per second needed.
    const many = bytes(Array.from({ length: 50_000 }, (_, i) => line(ev('MODIFIED', `cm-${i}`, String(i)))).join(''));
    n = 0;
    t = performance.now();
    for (let o = 0; o < many.length; o += 16_384) decoder.push(many.subarray(o, o + 16_384), () => n++);
    const seconds = (performance.now() - t) / 1000;
    expect(n).toBe(50_000);
    expect(n / seconds).toBeGreaterThan(20_000);
  });
});
