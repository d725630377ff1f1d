import { describe, expect, it } from 'vitest';
import {
  and,
  annotationsChanged,
  filterEvents,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  objectPredicate,
  or,
  resourceVersionChanged,
  type EventPredicate,
} from '../../src/informer/predicates.js';
import type { KubeObject, ObjectMeta } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/index.js';
import { type InformerEvent } from '../../src/cache/informer-event.js';
import { LabelSelectorError } from '../../src/api/label-selector.js';
import { marbles } from '../helpers/marbles.js';

const obj = (meta: Partial<ObjectMeta> = {}): KubeObject => ({ metadata: { name: 'o', namespace: 'ns', ...meta } });
const add = (o: KubeObject): InformerEvent => ({ type: 'add', object: o, isInInitialList: false });
const upd = (old: KubeObject, o: KubeObject): InformerEvent => ({ type: 'update', old, object: o, resync: false });
const del = (o: KubeObject): InformerEvent => ({ type: 'delete', object: o });

describe('filterEvents', () => {
  it(
    'matches the marble diagram in its doc comment',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        a: add(obj({ generation: 1 })),
        u: upd(obj({ generation: 1, resourceVersion: '1' }), obj({ generation: 1, resourceVersion: '2' })),
        v: upd(obj({ generation: 1 }), obj({ generation: 2 })),
        d: del(obj()),
      };
      m.expect(m.cold('--a--u--v--d--|', events).pipe(filterEvents(generationChanged()))).toBeObservable(
        '--a-----v--d--|',
        events,
      );
    }),
  );

  it(
    'ANDs several predicates',
    marbles((m) => {
      const events: Record<string, InformerEvent> = {
        x: upd(obj({ generation: 1, labels: { a: '1' } }), obj({ generation: 2, labels: { a: '2' } })),
        y: upd(obj({ generation: 1 }), obj({ generation: 2 })),
      };
      m.expect(m.cold('-x-y-|', events).pipe(filterEvents(generationChanged(), labelsChanged()))).toBeObservable(
        '-x---|',
        events,
      );
    }),
  );
});

describe('change predicates', () => {
  it('resourceVersionChanged drops resyncs and passes add/delete', () => {
    const p = resourceVersionChanged();
    expect(p(upd(obj({ resourceVersion: '1' }), obj({ resourceVersion: '1' })))).toBe(false);
    expect(p(upd(obj({ resourceVersion: '1' }), obj({ resourceVersion: '2' })))).toBe(true);
    expect(p(add(obj()))).toBe(true);
    expect(p(del(obj()))).toBe(true);
  });

  it('generationChanged: objects without generation compare equal', () => {
    const p = generationChanged();
    expect(p(upd(obj({ resourceVersion: '1' }), obj({ resourceVersion: '2' })))).toBe(false);
    expect(p(upd(obj({ generation: 3 }), obj({ generation: 4 })))).toBe(true);
  });

  it('a missing old or new object in an update fails', () => {
    const broken = { type: 'update', old: null, object: obj(), resync: false } as unknown as InformerEvent;
    expect(resourceVersionChanged()(broken)).toBe(false);
    expect(labelsChanged()(broken)).toBe(false);
  });

  for (const [label, make, p] of [
    ['labels', (m?: Record<string, string>) => obj(m === undefined ? {} : { labels: m }), labelsChanged()],
    ['annotations', (m?: Record<string, string>) => obj(m === undefined ? {} : { annotations: m }), annotationsChanged()],
  ] as const) {
    it(`${label}Changed: nil and {} are equal; value change, add and removal are changes`, () => {
      expect(p(upd(make(), make({})))).toBe(false);
      expect(p(upd(make({ a: '1' }), make({ a: '1' })))).toBe(false);
      expect(p(upd(make({ a: '1' }), make({ a: '2' })))).toBe(true);
      expect(p(upd(make({ a: '1' }), make({ a: '1', b: '2' })))).toBe(true);
      expect(p(upd(make({ a: '1', b: '2' }), make({ a: '1' })))).toBe(true);
      expect(p(upd(make({ a: '1' }), make()))).toBe(true);
      expect(p(add(make({ a: '1' })))).toBe(true);
    });
  }
});

describe('object and selector predicates', () => {
  it('objectPredicate looks at the new object of updates and unwraps tombstones', () => {
    const p = objectPredicate<KubeObject>((o) => o.metadata?.name === 'keep');
    expect(p(upd(obj({ name: 'keep' }), obj({ name: 'drop' })))).toBe(false);
    expect(p(upd(obj({ name: 'drop' }), obj({ name: 'keep' })))).toBe(true);
    expect(p({ type: 'delete', object: new DeletedFinalStateUnknown('ns/keep', obj({ name: 'keep' })) })).toBe(true);
    expect(p({ type: 'delete', object: new DeletedFinalStateUnknown('ns/drop', obj({ name: 'drop' })) })).toBe(false);
    expect(p({ type: 'delete', object: new DeletedFinalStateUnknown('ns/x', null) })).toBe(true);
  });

  it('labelSelectorPredicate matches string and structured selectors', () => {
    const web = obj({ labels: { app: 'web', tier: 'front' } });
    const db = obj({ labels: { app: 'db' } });
    const cases: [string | object, boolean, boolean][] = [
      ['app=web', true, false],
      ['app==web,tier', true, false],
      ['app!=web', false, true],
      ['app in (web, db)', true, true],
      ['app notin (web)', false, true],
      ['!tier', false, true],
      ['', true, true],
      [{ matchLabels: { app: 'db' } }, false, true],
      [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true, false],
      [{ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['db'] }] }, true, false],
    ];
    for (const [sel, w, d] of cases) {
      const p = labelSelectorPredicate(sel as string);
      expect([sel, p(add(web)), p(add(db))]).toEqual([sel, w, d]);
    }
  });

  it('an invalid selector throws LabelSelectorError at once', () => {
    for (const bad of ['app in (web', 'a b', '=x', 'a=b=c', 'n>1.5', '-bad=x', 'k=' + 'v'.repeat(64)]) {
      expect(() => labelSelectorPredicate(bad), bad).toThrow(LabelSelectorError);
    }
    expect(() => labelSelectorPredicate({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toThrow(LabelSelectorError);
    expect(() => labelSelectorPredicate({ matchExpressions: [{ key: 'a', operator: 'Bogus' as 'In', values: ['x'] }] })).toThrow(
      LabelSelectorError,
    );
  });
});

describe('and / or / not', () => {
  const yes: EventPredicate = () => true;
  const no: EventPredicate = () => false;
  const e = add(obj());

  it('and short-circuits on the first false; or on the first true', () => {
    const calls: string[] = [];
    const spy = (name: string, v: boolean): EventPredicate => () => (calls.push(name), v);
    expect(and(spy('a', true), spy('b', false), spy('c', true))(e)).toBe(false);
    expect(calls).toEqual(['a', 'b']);
    calls.length = 0;
    expect(or(spy('a', false), spy('b', true), spy('c', false))(e)).toBe(true);
    expect(calls).toEqual(['a', 'b']);
  });

  it('not negates; empty and is true, empty or is false', () => {
    expect(not(yes)(e)).toBe(false);
    expect(not(no)(e)).toBe(true);
    expect(and()(e)).toBe(true);
    expect(or()(e)).toBe(false);
    expect(or(generationChanged(), labelsChanged())(upd(obj({ labels: { a: '1' } }), obj()))).toBe(true);
  });
});
