import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/kube-object.js';
import { type ListDecodeMode, type ListHead, ListBodyDecoder } from '../../src/client/list-body-decoder.js';
import { ResponseDecodeError } from '../../src/client/response-decode-error.js';

const cm = (name: string, extra: Record<string, unknown> = {}): UnstructuredObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: '7', annotations: { tricky: 'a "quoted" {brace} [bracket] \\ back\\slash' } },
  data: { text: 'héllo → ✓ }]', nested: '{"json":[1,2]}' },
  ...extra,
});
const ITEMS = [cm('a'), cm('b', { spec: { list: [{ x: [] }, {}], empty: {} } }), cm('c')];
const BODY = JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 }, items: ITEMS });
const MODES: readonly ListDecodeMode[] = ['whole', 'items'];

/** Splits `buf` at the given cut points. */
function cut(buf: Buffer, points: readonly number[]): Buffer[] {
  const sorted = [...new Set(points.map((p) => p % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const p of sorted) {
    out.push(buf.subarray(at, p));
    at = p;
  }
  out.push(buf.subarray(at));
  return out;
}

function decode(mode: ListDecodeMode, chunks: readonly Buffer[]): { heads: Array<{ head: ListHead; afterBytes: number }>; page: ReturnType<ListBodyDecoder['end']> } {
  const heads: Array<{ head: ListHead; afterBytes: number }> = [];
  let bytes = 0;
  const d = new ListBodyDecoder(mode, '/api/v1/configmaps', (head) => heads.push({ head, afterBytes: bytes }));
  for (const c of chunks) {
    bytes += c.length;
    d.push(c);
  }
  return { heads, page: d.end() };
}

describe('ListBodyDecoder', () => {
  it.each(MODES)('%s: decodes the page, and reports the head once, as soon as the metadata object is complete', (mode) => {
    const buf = Buffer.from(BODY);
    const metaEnd = BODY.indexOf('},"items"') + 1;
    for (let at = 0; at <= buf.length; at++) {
      const { heads, page } = decode(mode, cut(buf, [at]));
      expect(page).toEqual({ items: ITEMS, resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
      expect(heads.map((h) => h.head)).toEqual([{ resourceVersion: '42', continue: 'tok', remainingItemCount: 3 }]);
      // reported with the chunk that completed the metadata, never later
      expect(heads[0]?.afterBytes).toBe(at >= metaEnd ? at : buf.length);
    }
  });

  it.each(MODES)('%s: any chunking gives the same page', (mode) => {
    const buf = Buffer.from(BODY);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (points) => {
        expect(decode(mode, cut(buf, points)).page.items).toEqual(ITEMS);
      }),
    );
  });

  it.each(MODES)('%s: a last page has no continue; missing or null items is an empty list; metadata after the items gives no early head', (mode) => {
    const last = decode(mode, [Buffer.from('{"kind":"L","metadata":{"resourceVersion":"5"},"items":[]}')]);
    expect(last.page).toEqual({ items: [], resourceVersion: '5' });
    expect(decode(mode, [Buffer.from('{"kind":"L","metadata":{"resourceVersion":"5"}}')]).page).toEqual({ items: [], resourceVersion: '5' });
    expect(decode(mode, [Buffer.from('{"metadata":{"resourceVersion":"5"},"items":null}')]).page).toEqual({ items: [], resourceVersion: '5' });
    const late = decode(mode, [Buffer.from(`{"items":${JSON.stringify(ITEMS)},"metadata":{"resourceVersion":"9","continue":"x"}}`)]);
    expect(late.page).toEqual({ items: ITEMS, resourceVersion: '9', continue: 'x' });
    if (mode === 'whole') expect(late.heads).toEqual([]);
    const noMeta = decode(mode, [Buffer.from(`{"items":[${JSON.stringify(cm('z'))}]}`)]);
    expect(noMeta.page).toEqual({ items: [cm('z')], resourceVersion: '' });
  });

  it.each(MODES)('%s: refuses what is not a list object', (mode) => {
    const bad = ['', '   ', 'not json', '[1,2]', '{"items":{"a":1}}', '{"items":"x"}', '{"metadata":{"resourceVersion":"1"},"items":[{"a":1}'];
    for (const body of bad) {
      expect(() => decode(mode, [Buffer.from(body)]), `${mode}: ${body}`).toThrow(ResponseDecodeError);
    }
  });

  it('streamLastPage: a page with a next page stays unparsed; one without is parsed item by item, under any chunking', () => {
    const last = Buffer.from(JSON.stringify({ kind: 'ConfigMapList', metadata: { resourceVersion: '42' }, items: ITEMS }));
    const more = Buffer.from(BODY);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 30 }), (points) => {
        const feed = (buf: Buffer) => {
          const d = new ListBodyDecoder('whole', '/p', () => undefined, true);
          for (const c of cut(buf, points)) d.push(c);
          return d;
        };
        const kept = feed(more).endUnparsed();
        expect(kept?.body.toString()).toBe(BODY);
        expect(kept?.head).toEqual({ resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
        const streamed = feed(last);
        expect(streamed.endUnparsed()).toBeUndefined();
        expect(streamed.end()).toEqual({ items: ITEMS, resourceVersion: '42' });
      }),
    );
  });
});
