import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import { KeyError } from '../../src/cache/errors.js';
import { deletionHandlingKey, fifoKeyOf, joinKey, metaNamespaceKey, splitKey } from '../../src/cache/keys.js';
import { report } from './report.js';

/**
 * Fuzzing the key functions (ST-1..ST-3): arbitrary values (anything fast-check can build, objects
 * with wrong-typed metadata) give a key or a KeyError, never another exception; keys of well-formed
 * objects round-trip through splitKey; tombstones keep their key.
 */

function keyOrError(f: () => string): { key: string } | { error: KeyError } {
  try {
    return { key: f() };
  } catch (err) {
    if (!(err instanceof KeyError)) throw new Error(`not a KeyError: ${String(err)}`, { cause: err });
    return { error: err };
  }
}

const segment = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter((s) => !s.includes('/'));
const oddValue = fc.oneof(fc.anything(), fc.string(), fc.constant(''), fc.constant(null), fc.constant(undefined), fc.integer());
const oddObject = fc.oneof(
  fc.anything(),
  fc.record({ metadata: oddValue }),
  fc.record({ metadata: fc.record({ name: oddValue, namespace: oddValue }, { requiredKeys: [] }) }),
  fc.record({ kind: oddValue, metadata: fc.dictionary(fc.string(), oddValue) }),
);

describe('fuzz: key functions', () => {
  it('metaNamespaceKey / deletionHandlingKey / fifoKeyOf: a string key or a KeyError for anything', () => {
    let runs = 0;
    let errors = 0;
    fc.assert(
      fc.property(oddObject, (value) => {
        runs++;
        // fifoKeyOf reads an array as a Deltas list (built by the queue itself), so arrays go in wrapped.
        const fifo = (v: KubeObject): string => (Array.isArray(v) ? fifoKeyOf([{ type: 'Added', object: v }]) : fifoKeyOf(v));
        for (const f of [metaNamespaceKey, deletionHandlingKey, fifo, (v: KubeObject) => fifoKeyOf([{ type: 'Added', object: v }])]) {
          const r = keyOrError(() => f(value as KubeObject));
          if ('error' in r) errors++;
          else {
            expect(typeof r.key).toBe('string');
            expect(r.key).not.toBe('');
          }
        }
      }),
      { numRuns: 1000 },
    );
    report('keys / arbitrary values', runs * 4, `${errors} KeyErrors`);
  });

  it('a well-formed object keys to ns/name and splits back', () => {
    let runs = 0;
    fc.assert(
      fc.property(segment, fc.option(fc.oneof(segment, fc.constant('')), { nil: undefined }), (name, namespace) => {
        runs++;
        const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: namespace === undefined ? { name } : { name, namespace } };
        const key = metaNamespaceKey(obj);
        expect(deletionHandlingKey(obj)).toBe(key);
        expect(fifoKeyOf(obj)).toBe(key);
        expect(splitKey(key)).toEqual({ namespace: namespace ?? '', name });
        expect(joinKey(namespace, name)).toBe(key);
      }),
      { numRuns: 1000 },
    );
    report('keys / round trip', runs);
  });

  it('a tombstone keys to the key it carries, whatever its object', () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.string(), oddObject, (key, object) => {
        runs++;
        const t = new DeletedFinalStateUnknown(key, object as KubeObject);
        expect(deletionHandlingKey(t)).toBe(key);
        expect(fifoKeyOf(t)).toBe(key);
        expect(fifoKeyOf([{ type: 'Deleted', object: t }])).toBe(key);
      }),
      { numRuns: 500 },
    );
    report('keys / tombstones', runs);
  });

  it('splitKey: any string splits into parts that join back, or a KeyError for two or more slashes', () => {
    let runs = 0;
    let errors = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.constantFrom('a', '/', '', 'ns', 'x/y'), { maxLength: 6 }).map((p) => p.join(''))), (key) => {
        runs++;
        const slashes = key.split('/').length - 1;
        const r = keyOrError(() => JSON.stringify(splitKey(key)));
        if ('error' in r) {
          errors++;
          expect(slashes).toBeGreaterThanOrEqual(2);
          return;
        }
        expect(slashes).toBeLessThan(2);
        const { namespace, name } = JSON.parse(r.key) as { namespace: string; name: string };
        expect(slashes === 0 ? name : `${namespace}/${name}`).toBe(key);
        if (slashes === 0) expect(namespace).toBe('');
      }),
      { numRuns: 1000 },
    );
    report('keys / splitKey', runs, `${errors} KeyErrors`);
  });

  it('an empty Deltas list is a KeyError', () => {
    expect(() => fifoKeyOf([])).toThrow(KeyError);
  });
});
