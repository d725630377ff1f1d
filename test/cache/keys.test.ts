import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown, deletionHandlingKey, KeyError, splitKey } from '../../src/cache/index.js';
import { joinKey, metaNamespaceKey } from '../../src/cache/keys.js';

describe('keys: bad input', () => {
  it('an object without metadata.name is a KeyError naming the object', () => {
    const obj = { kind: 'Pod', metadata: { namespace: 'team-a', name: '' } };
    let error: unknown;
    try {
      metaNamespaceKey(obj);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KeyError);
    expect((error as KeyError).object).toBe(obj);
    expect((error as KeyError).message).toBe("couldn't create key for object Pod team-a/<no name>: object has no metadata.name");
  });
  it('non-objects are rejected with a KeyError', () => {
    expect(() => metaNamespaceKey(null as never)).toThrow(KeyError);
    expect(() => metaNamespaceKey({ metadata: null } as never)).toThrow(/object has no meta/);
  });
  it('a key with too many slashes names the key', () => {
    expect(() => splitKey('ns/a/b')).toThrow(`couldn't create key for object "ns/a/b": unexpected key format: "ns/a/b"`);
  });
  it('tombstones keep their key even with stale contents', () => {
    expect(deletionHandlingKey(new DeletedFinalStateUnknown('a/b', { metadata: { name: 'c' } }))).toBe('a/b');
  });
  it('joinKey inverts splitKey', () => {
    expect(joinKey('ns', 'a')).toBe('ns/a');
    expect(joinKey('', 'a')).toBe('a');
    expect(joinKey(undefined, 'a')).toBe('a');
  });
});
