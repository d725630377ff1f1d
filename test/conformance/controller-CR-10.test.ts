/** docs/semantics.md §8.4 CR-10: predicates. */
import { describe, expect, it } from 'vitest';
import {
  and,
  annotationsChanged,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  objectPredicate,
  or,
  resourceVersionChanged,
} from '../../src/informer/predicates.js';
import type { KubeObject, ObjectMeta } from '../../src/api/kube-object.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { LabelSelectorError } from '../../src/api/label-selector.js';

const o = (meta: Partial<ObjectMeta>): KubeObject => ({ metadata: { name: 'x', namespace: 'ns', ...meta } });
const upd = (a: Partial<ObjectMeta>, b: Partial<ObjectMeta>): InformerEvent => ({ type: 'update', old: o(a), object: o(b), resync: false });
const nonUpdates: InformerEvent[] = [
  { type: 'add', object: o({}), isInInitialList: false },
  { type: 'delete', object: o({}) },
];

describe('CR-10 predicates', () => {
  it('non-update events pass every change predicate', () => {
    for (const p of [resourceVersionChanged(), generationChanged(), labelsChanged(), annotationsChanged()]) {
      for (const e of nonUpdates) expect(p(e)).toBe(true);
    }
  });

  it('ResourceVersionChanged: old RV ≠ new RV', () => {
    expect(resourceVersionChanged()(upd({ resourceVersion: '1' }, { resourceVersion: '1' }))).toBe(false);
    expect(resourceVersionChanged()(upd({ resourceVersion: '1' }, { resourceVersion: '2' }))).toBe(true);
  });

  it('GenerationChanged: status/label-only updates filtered; objects without generation filtered', () => {
    expect(generationChanged()(upd({ generation: 1, resourceVersion: '1' }, { generation: 1, resourceVersion: '2' }))).toBe(false);
    expect(generationChanged()(upd({ generation: 1 }, { generation: 2 }))).toBe(true);
    expect(generationChanged()(upd({ resourceVersion: '1' }, { resourceVersion: '2' }))).toBe(false);
  });

  for (const [field, p] of [
    ['labels', labelsChanged()],
    ['annotations', annotationsChanged()],
  ] as const) {
    it(`${field}: empty / unchanged / value changed / added / removed; nil == {}`, () => {
      const m = (x?: Record<string, string>): Partial<ObjectMeta> => (x === undefined ? {} : { [field]: x });
      expect(p(upd(m({}), m({})))).toBe(false);
      expect(p(upd(m(), m({})))).toBe(false);
      expect(p(upd(m({ a: '1' }), m({ a: '1' })))).toBe(false);
      expect(p(upd(m({ a: '1' }), m({ a: '2' })))).toBe(true);
      expect(p(upd(m({ a: '1' }), m({ a: '1', b: '2' })))).toBe(true);
      expect(p(upd(m({ a: '1', b: '2' }), m({ a: '1' })))).toBe(true);
    });
  }

  it('null old or new object in an update → false', () => {
    const e = { type: 'update', old: o({}), object: null, resync: false } as unknown as InformerEvent;
    for (const p of [resourceVersionChanged(), generationChanged(), labelsChanged(), annotationsChanged()]) expect(p(e)).toBe(false);
  });

  it('And short-circuits on first false, Or on first true, Not negates; object predicate sees the new object', () => {
    const seen: string[] = [];
    const t = (n: string) => () => (seen.push(n), true);
    const f = (n: string) => () => (seen.push(n), false);
    const e = nonUpdates[0] as InformerEvent;
    expect(and(t('1'), f('2'), t('3'))(e)).toBe(false);
    expect(or(f('4'), t('5'), f('6'))(e)).toBe(true);
    expect(not(t('7'))(e)).toBe(false);
    expect(seen).toEqual(['1', '2', '4', '5', '7']);
    expect(objectPredicate((x) => x.metadata?.name === 'new')({ type: 'update', old: o({ name: 'old' }), object: o({ name: 'new' }), resync: false })).toBe(true);
  });

  it('LabelSelectorPredicate matches labels and errors on an invalid selector', () => {
    const p = labelSelectorPredicate({ matchLabels: { foo: 'bar' } });
    expect(p({ type: 'add', object: o({ labels: { foo: 'bar' } }), isInInitialList: false })).toBe(true);
    expect(p({ type: 'add', object: o({ labels: { foo: 'baz' } }), isInInitialList: false })).toBe(false);
    expect(() => labelSelectorPredicate('foo in (bar')).toThrow(LabelSelectorError);
  });
});
