import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { eventKey, objectOf } from '../../src/informer/event-object.js';
import { obj } from './helpers.js';

describe('objectOf / eventKey', () => {
  const x1 = obj('x', '1');
  const x2 = obj('x', '2');

  it('add and update: the (new) object', () => {
    const add: InformerEvent = { type: 'add', object: x1, isInInitialList: false };
    const update: InformerEvent = { type: 'update', old: x1, object: x2, resync: false };
    expect(objectOf(add)).toBe(x1);
    expect(objectOf(update)).toBe(x2);
    expect(eventKey(update)).toBe('ns/x');
  });

  it('delete: the object, or a tombstone\'s last known state, or undefined when none was known', () => {
    expect(objectOf({ type: 'delete', object: x1 })).toBe(x1);
    expect(objectOf({ type: 'delete', object: new DeletedFinalStateUnknown('ns/x', x2) })).toBe(x2);
    expect(objectOf({ type: 'delete', object: new DeletedFinalStateUnknown<KubeObject>('ns/x', null) })).toBeUndefined();
    expect(eventKey({ type: 'delete', object: new DeletedFinalStateUnknown<KubeObject>('ns/gone', null) })).toBe('ns/gone');
  });

  it('takes a delete\'s `T | DeletedFinalStateUnknown<T>` directly too', () => {
    expect(objectOf(x1)).toBe(x1);
    expect(objectOf(new DeletedFinalStateUnknown('ns/x', x2))).toBe(x2);
    // An object that happens to have a `type` field is an object, not an event.
    const secret = { metadata: { name: 's' }, type: 'add', object: {} } as KubeObject;
    expect(objectOf(secret)).toBe(secret);
  });
});
