import fc from 'fast-check';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { managedFieldsSpan } from '../../src/client/managed-fields-span.js';
import { decodeWatchLines } from '../../src/client/watch-line-decoder.js';

/** `line` parsed with the span cut, or `undefined` when the scanner finds none. */
function parsedWithoutSpan(line: string): unknown {
  const buf = Buffer.from(line, 'utf8');
  const span = managedFieldsSpan(buf, 0, buf.length);
  if (span === undefined) return undefined;
  return JSON.parse(buf.toString('utf8', 0, span.start) + buf.toString('utf8', span.end));
}

/** What a consumer dropping `object.metadata.managedFields` after a whole parse sees. */
function parsedThenDropped(line: string): unknown {
  const value = JSON.parse(line) as { object?: { metadata?: Record<string, unknown> } };
  const meta = value?.object?.metadata;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) delete meta.managedFields;
  return value;
}

const managedFields = [{ manager: 'kubelet', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:phase': {}, 'k:{"type":"Ready"}': { '.': {} } } } }];

describe('managedFieldsSpan', () => {
  it('cuts object.metadata.managedFields as first, middle, last or only member, with its comma', () => {
    const metas = [
      { managedFields, name: 'a', uid: 'u' },
      { name: 'a', managedFields, uid: 'u' },
      { name: 'a', uid: 'u', managedFields },
      { managedFields },
      { name: 'a', managedFields: null },
    ];
    for (const metadata of metas) {
      const line = JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', metadata, spec: { x: [1, '{'] } } });
      expect(parsedWithoutSpan(line)).toEqual(parsedThenDropped(line));
    }
  });

  it('accepts whitespace between tokens, also between the key and its colon', () => {
    const line = ' { "type" : "ADDED" , "object" : { "metadata" : { "name" : "a" , "managedFields": [ { "a" : "]" } ] } } } ';
    expect(parsedWithoutSpan(line)).toEqual({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    expect(parsedWithoutSpan(line.replace('"managedFields":', '"managedFields" :'))).toEqual({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    const last = ' { "object" : { "metadata" : { "name" : 1 ,\t"managedFields"\r\n:\tnull } } } ';
    expect(parsedWithoutSpan(last)).toEqual({ object: { metadata: { name: 1 } } });
  });

  it('skips members of any kind before the path: numbers, literals, strings with escapes, nested values', () => {
    const line = String.raw`{"n":-1.5e3,"t":true,"f":false,"z":null,"s":"a\\\"}","o":{"x":[{"managedFields":[]}]},"object":{"a":[1,{"b":"]"}],"metadata":{"k":0,"managedFields":[{"f":"x"}],"name":"p"}}}`;
    expect(parsedWithoutSpan(line)).toEqual(parsedThenDropped(line));
  });

  it('finds nothing in malformed or cut-off lines', () => {
    const whole = '{"object":{"metadata":{"name":"a","managedFields":[{"m":"k"}]}}}';
    for (let end = 0; end < whole.length - 2; end++) {
      const buf = Buffer.from(whole.slice(0, end), 'utf8');
      expect(managedFieldsSpan(buf, 0, buf.length)).toBeUndefined();
    }
    for (const line of ['{"object":{"metadata":{"name" "a","managedFields":[]}}}', '{"object":{"metadata":{"name":tru:e,"managedFields":[]}}}', '["object",{"metadata":{"managedFields":[]}}]']) {
      expect(parsedWithoutSpan(line)).toBeUndefined();
    }
  });

  it('reads only the bytes of the line, not past `to`', () => {
    const line = '{"object":{"metadata":{"managedFields":[1]}}}';
    const buf = Buffer.from(`${line}\n${line}`, 'utf8');
    // `to` just after the array, before the brace that closes metadata: nothing found (the
    // member may not end there), the next line's bytes are not consulted.
    expect(managedFieldsSpan(buf, 0, line.length - 3)).toBeUndefined();
    expect(managedFieldsSpan(buf, 0, line.length - 2)).toEqual({ start: 23, end: 42 });
    expect(managedFieldsSpan(buf, line.length + 1, buf.length)).toEqual({ start: line.length + 1 + 23, end: line.length + 1 + 42 });
  });

  it('leaves every other managedFields alone: in labels, in spec, in arrays, outside `object`, inside strings', () => {
    const lines = [
      { type: 'ADDED', object: { metadata: { labels: { managedFields: 'x' } } } },
      { type: 'ADDED', object: { spec: { metadata: { managedFields } } } },
      { type: 'ADDED', object: { items: [{ metadata: { managedFields } }] } },
      { type: 'ADDED', other: { metadata: { managedFields } } },
      { type: 'ADDED', object: { metadata: { note: '"managedFields":[1]' } } },
      { type: 'ADDED', object: { metadata: { managedFields: { not: 'an array' } } } },
    ].map((e) => JSON.stringify(e));
    for (const line of lines) expect(parsedWithoutSpan(line)).toBeUndefined();
  });

  it('finds nothing in a Uint8Array that is not a Buffer (browsers parse whole lines)', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ type: 'ADDED', object: { metadata: { managedFields } } }));
    expect(managedFieldsSpan(bytes, 0, bytes.length)).toBeUndefined();
  });

  it('never changes anything but that member (property: random objects with tricky keys and strings)', () => {
    const key = fc.constantFrom('managedFields', 'metadata', 'object', 'type', 'a', 'b"c', 'd\\', '{', '[');
    const leaf = fc.oneof(fc.constantFrom('managedFields', '"managedFields":[', '\\', '"', ']', '}', '{', ''), fc.integer(), fc.boolean(), fc.constant(null));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ maxDepth: 5 }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
    }));
    const event = fc.record({
      type: fc.constant('MODIFIED'),
      object: fc.dictionary(key, value, { maxKeys: 4 }).chain((object) =>
        fc.record({ metadata: fc.dictionary(key, value, { maxKeys: 4 }), withFields: fc.boolean() }).map(({ metadata, withFields }) => ({
          ...object,
          metadata: withFields ? { ...metadata, managedFields } : metadata,
        })),
      ),
    });
    let cuts = 0;
    fc.assert(
      fc.property(event, fc.boolean(), (e, spaced) => {
        const line = spaced ? JSON.stringify(e, null, 1).replace(/\n/g, ' ') : JSON.stringify(e);
        const cut = parsedWithoutSpan(line);
        if (cut === undefined) return;
        cuts++;
        expect(cut).toEqual(parsedThenDropped(line));
      }),
      { numRuns: 2000 },
    );
    expect(cuts).toBeGreaterThan(200); // the property is not vacuous

  });
});

describe('decodeWatchLines({ omitManagedFields })', () => {
  const ev = (name: string, rv: string) => ({
    type: 'MODIFIED',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', resourceVersion: rv, managedFields, labels: { app: 'é✓' } }, spec: {} },
  });
  const body = Buffer.from([ev('a', '1'), ev('b', '2')].map((e) => `${JSON.stringify(e)}\n`).join(''));
  const decode = (chunks: readonly Uint8Array[], omitManagedFields: boolean): Promise<WatchEvent[]> =>
    lastValueFrom(from(chunks).pipe(decodeWatchLines({ omitManagedFields }), toArray()));

  it('decodes events without metadata.managedFields, also from lines split across chunks', async () => {
    const expected = [ev('a', '1'), ev('b', '2')].map((e) => {
      const { managedFields: _dropped, ...metadata } = e.object.metadata;
      return { ...e, object: { ...e.object, metadata } };
    });
    expect(await decode([body], true)).toEqual(expected);
    const at = body.indexOf('managedFields') + 3;
    expect(await decode([body.subarray(0, at), body.subarray(at)], true)).toEqual(expected);
  });

  it('keeps managedFields without the option', async () => {
    expect(await decode([body], false)).toEqual([ev('a', '1'), ev('b', '2')]);
  });
});
