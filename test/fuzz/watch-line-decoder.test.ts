import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { decodeWatchLines, WatchLineDecoder } from '../../src/client/watch-line-decoder.js';
import { WatchDecodeError } from '../../src/client/watch-decode-error.js';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { report } from './report.js';

/**
 * Fuzzing the watch line decoder: generated event streams cut into random chunks (splitting
 * multi-byte UTF-8 sequences too), garbage lines mixed in, random bytes, truncated bodies. The
 * property: the events of a valid body come out exactly and in order whatever the chunking; a bad
 * body gives the events before the first bad line and then a WatchDecodeError pointing at that
 * line; never another exception type, never a different outcome for a different chunking.
 */

type Outcome = { readonly events: readonly WatchEvent[]; readonly error?: { readonly offset: number; readonly message: string } };

const eventType = fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK');
const text = fc.string({ unit: 'binary', maxLength: 12 });
const kubeObject: fc.Arbitrary<KubeObject> = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('ConfigMap'),
  metadata: fc.record({ name: text, namespace: text, resourceVersion: fc.nat().map(String) }),
  data: fc.dictionary(text, text, { maxKeys: 3 }),
});
const event: fc.Arbitrary<WatchEvent> = fc.record({ type: eventType, object: kubeObject });
const lineEnd = fc.constantFrom('\n', '\r\n', '\n\n', '\n  \n', '\n\t\r\n');

/** Cuts `bytes` at sorted random points. */
function cut(bytes: Buffer, points: readonly number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of at) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

function decodeAll(chunks: readonly Uint8Array[]): Outcome {
  const events: WatchEvent[] = [];
  const decoder = new WatchLineDecoder();
  const emit = (e: WatchEvent): void => {
    events.push(e);
  };
  try {
    for (const c of chunks) decoder.push(c, emit);
    decoder.end(emit);
    return { events };
  } catch (err) {
    if (!(err instanceof WatchDecodeError)) throw new Error(`not a WatchDecodeError: ${String(err)}`, { cause: err });
    return { events, error: { offset: err.offset, message: err.message } };
  }
}

/** Start offsets of the lines of a body (where the decoder may report an error). */
function lineStarts(body: Buffer): Set<number> {
  const s = new Set<number>([0]);
  for (let i = 0; i < body.length; i++) if (body[i] === 0x0a) s.add(i + 1);
  return s;
}

describe('fuzz: watch line decoder', () => {
  it('decodes any valid stream exactly, whatever the chunking and line endings', () => {
    let runs = 0;
    let chunksTried = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(event, lineEnd), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 20 }), fc.boolean(), (evs, points, finalNewline) => {
        runs++;
        let body = evs.map(([e, end]) => JSON.stringify(e) + end).join('');
        if (!finalNewline && body.endsWith('\n')) body = body.replace(/[\r\n\t ]+$/, '');
        const bytes = Buffer.from(body, 'utf8');
        const chunks = cut(bytes, points);
        chunksTried += chunks.length;
        const out = decodeAll(chunks);
        expect(out.error).toBeUndefined();
        expect(out.events).toEqual(evs.map(([e]) => e));
      }),
      { numRuns: 400 },
    );
    report('watch decoder / valid streams, random chunking', runs, `${chunksTried} chunks`);
  });

  it('the rxjs operator gives the same events as the decoder for any chunking', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), async (evs, points) => {
        runs++;
        const bytes = Buffer.from(evs.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
        const got = await lastValueFrom(from(cut(bytes, points)).pipe(decodeWatchLines(), toArray()));
        expect(got).toEqual(evs);
      }),
      { numRuns: 150 },
    );
    report('watch decoder / operator, random chunking', runs);
  });

  const garbage = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).filter((s) => !s.includes('\n') && s.trim() !== ''),
    fc.constantFrom('null', '[]', '1', '"x"', '{}', '{"type":"ADDED"}', '{"type":"ADDED","object":null}', '{"type":"ADDED","object":[1]}',
      '{"type":"NOPE","object":{}}', '{"type":7,"object":{}}', '{"object":{}}', '{"type":"ADDED","object":{}', 'true', '{"type":"__proto__","object":{}}',
      '{"type":"constructor","object":{}}', '{"type":"toString","object":{}}', '\u0000', '\ufeff{"type":"ADDED","object":{}}'),
  );

  it('a garbage line gives the events before it, then a WatchDecodeError at its offset, for any chunking', () => {
    let runs = 0;
    let errors = 0;
    fc.assert(
      fc.property(fc.array(event, { maxLength: 6 }), garbage, fc.array(event, { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 12 }), (before, bad, after, points) => {
        runs++;
        const head = before.map((e) => `${JSON.stringify(e)}\n`).join('');
        const body = Buffer.from(`${head}${bad}\n${after.map((e) => `${JSON.stringify(e)}\n`).join('')}`, 'utf8');
        const whole = decodeAll([body]);
        const chunked = decodeAll(cut(body, points));
        expect(chunked).toEqual(whole);
        // The garbage line may happen to be a valid event (e.g. a random '{"type":"ADDED","object":{}}').
        if (whole.error === undefined) return;
        errors++;
        expect(whole.events).toEqual(before);
        expect(whole.error.offset).toBe(Buffer.byteLength(head));
      }),
      { numRuns: 400 },
    );
    report('watch decoder / garbage lines', runs, `${errors} typed errors`);
  });

  it('random bytes: a WatchDecodeError at a line start or events, never another exception, independent of chunking', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.array(fc.nat(), { maxLength: 12 }), (raw, points) => {
        runs++;
        const body = Buffer.from(raw);
        const whole = decodeAll([body]);
        expect(decodeAll(cut(body, points))).toEqual(whole);
        if (whole.error !== undefined) expect(lineStarts(body).has(whole.error.offset)).toBe(true);
      }),
      { numRuns: 400 },
    );
    report('watch decoder / random bytes', runs);
  });

  it('mutated bytes of a valid stream: only the events before the damaged line are trusted', () => {
    let runs = 0;
    let damaged = 0;
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 8 }), (evs, flips, points) => {
        runs++;
        const body = Buffer.from(evs.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
        const lineEnds: number[] = [];
        for (let i = 0; i < body.length; i++) if (body[i] === 0x0a) lineEnds.push(i);
        let firstChanged = body.length;
        const copy = Buffer.from(body);
        for (const [at, value] of flips) {
          const i = at % body.length;
          if (copy[i] !== value) firstChanged = Math.min(firstChanged, i);
          copy[i] = value;
        }
        const out = decodeAll(cut(copy, points));
        // Every line that ends before the first changed byte decodes unchanged.
        const intact = lineEnds.filter((e) => e < firstChanged).length;
        expect(out.events.slice(0, intact)).toEqual(evs.slice(0, intact));
        if (out.error !== undefined) {
          damaged++;
          expect(lineStarts(copy).has(out.error.offset)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
    report('watch decoder / mutated bytes', runs, `${damaged} typed errors`);
  });

  it('a body truncated anywhere gives a prefix of its events, and an error only when a line was cut', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), fc.nat(), (evs, at) => {
        runs++;
        const lines = evs.map((e) => `${JSON.stringify(e)}\n`);
        const body = Buffer.from(lines.join(''), 'utf8');
        const cutAt = at % (body.length + 1);
        const out = decodeAll([body.subarray(0, cutAt)]);
        expect(evs.slice(0, out.events.length)).toEqual(out.events);
        const boundaries = new Set<number>([0]);
        let acc = 0;
        for (const l of lines) {
          acc += Buffer.byteLength(l);
          boundaries.add(acc);
          boundaries.add(acc - 1); // cut right before the newline: the line is complete
        }
        expect(out.error === undefined).toBe(boundaries.has(cutAt));
      }),
      { numRuns: 400 },
    );
    report('watch decoder / truncated bodies', runs);
  });
});
