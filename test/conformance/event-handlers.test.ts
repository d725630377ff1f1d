/** docs/semantics.md §5: CT-2 (handler funcs), CT-3 (filtering handler → filterTransitions). */
import { from } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/index.js';
import { dispatchEvent } from '../../src/cache/event-handler.js';
import { type InformerEvent } from '../../src/cache/informer-event.js';
import { filterTransitions } from '../../src/informer/filter-transitions.js';

const o = (name: string, ready: boolean): UnstructuredObject => ({ metadata: { name, resourceVersion: name }, ready });
const isReady = (x: KubeObject) => (x as UnstructuredObject).ready === true;
const filter = (events: InformerEvent[]): InformerEvent[] => {
  const out: InformerEvent[] = [];
  from(events).pipe(filterTransitions(isReady)).subscribe((e) => out.push(e));
  return out;
};

describe('CT-2 ResourceEventHandlerFuncs', () => {
  it('invokes the matching callback, passing isInInitialList to add', () => {
    const calls: unknown[][] = [];
    const handlers = {
      add: (obj: KubeObject, initial: boolean) => calls.push(['add', obj.metadata?.name, initial]),
      update: (old: KubeObject, obj: KubeObject) => calls.push(['update', old.metadata?.name, obj.metadata?.name]),
      delete: (obj: KubeObject | DeletedFinalStateUnknown) => calls.push(['delete', obj instanceof DeletedFinalStateUnknown ? obj.key : obj.metadata?.name]),
    };
    dispatchEvent(handlers, { type: 'add', object: o('a', true), isInInitialList: true });
    dispatchEvent(handlers, { type: 'add', object: o('b', true), isInInitialList: false });
    dispatchEvent(handlers, { type: 'update', old: o('a', true), object: o('a2', true), resync: false });
    dispatchEvent(handlers, { type: 'delete', object: new DeletedFinalStateUnknown('t', null) });
    expect(calls).toEqual([
      ['add', 'a', true],
      ['add', 'b', false],
      ['update', 'a', 'a2'],
      ['delete', 't'],
    ]);
  });
  it('missing callbacks are no-ops; an add handler may ignore the flag', () => {
    const added: string[] = [];
    expect(() => {
      dispatchEvent({}, { type: 'add', object: o('a', true), isInInitialList: true });
      dispatchEvent({}, { type: 'update', old: o('a', true), object: o('a', true), resync: true });
      dispatchEvent({}, { type: 'delete', object: o('a', true) });
      dispatchEvent({ add: (x) => added.push(x.metadata?.name as string) }, { type: 'delete', object: o('a', true) });
      dispatchEvent({ add: (x) => added.push(x.metadata?.name as string) }, { type: 'add', object: o('b', true), isInInitialList: true });
    }).not.toThrow();
    expect(added).toEqual(['b']);
  });
});

describe('CT-3 FilteringResourceEventHandler', () => {
  it('add and delete pass iff the filter passes, keeping isInInitialList', () => {
    expect(
      filter([
        { type: 'add', object: o('a', true), isInInitialList: true },
        { type: 'add', object: o('b', false), isInInitialList: true },
        { type: 'delete', object: o('c', true) },
        { type: 'delete', object: o('d', false) },
      ]),
    ).toEqual([
      { type: 'add', object: o('a', true), isInInitialList: true },
      { type: 'delete', object: o('c', true) },
    ]);
  });
  it('still-passing → update, starts-passing → add, stops-passing → delete(old), still-failing → nothing', () => {
    expect(
      filter([
        { type: 'update', old: o('a', true), object: o('a2', true), resync: false },
        { type: 'update', old: o('b', false), object: o('b2', true), resync: false },
        { type: 'update', old: o('c', true), object: o('c2', false), resync: false },
        { type: 'update', old: o('d', false), object: o('d2', false), resync: false },
      ]),
    ).toEqual([
      { type: 'update', old: o('a', true), object: o('a2', true), resync: false },
      { type: 'add', object: o('b2', true), isInInitialList: false },
      { type: 'delete', object: o('c', true) },
    ]);
  });
  it('a tombstone is judged by its last known object; one without an object passes', () => {
    const passing = new DeletedFinalStateUnknown('p', o('p', true));
    const failing = new DeletedFinalStateUnknown('f', o('f', false));
    const unknown = new DeletedFinalStateUnknown('u', null);
    expect(
      filter([
        { type: 'delete', object: passing },
        { type: 'delete', object: failing },
        { type: 'delete', object: unknown },
      ]).map((e) => (e.object as DeletedFinalStateUnknown).key),
    ).toEqual(['p', 'u']);
  });
});
