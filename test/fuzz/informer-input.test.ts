import fc from 'fast-check';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { DeletedFinalStateUnknown } from '../../src/cache/delta.js';
import type { InformerEvent } from '../../src/cache/informer-event.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { report } from './report.js';

/**
 * Fuzzing the informer with malformed input: reflector events whose objects lack metadata or a
 * name, carry wrong-typed fields, or repeat a key in one list. The property: feeding never throws
 * into the source, bad objects are reported on `errors$` and change nothing, and the cache and a
 * subscriber's view equal a model built from the well-formed objects only.
 */

const names = ['a', 'b', 'c', 'd'];
const good = fc.record({
  name: fc.constantFrom(...names),
  ns: fc.constantFrom('', 'x', 'y'),
  rv: fc.integer({ min: 1, max: 10_000 }).map(String),
  managed: fc.boolean(),
}).map(({ name, ns, rv, managed }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(ns === '' ? {} : { namespace: ns }), resourceVersion: rv, ...(managed ? { managedFields: [{ manager: 'm' }] } : {}) },
}));
const bad: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, undefined, 1, 'str', [], [1], {}, { metadata: null }, { metadata: [] }, { metadata: 'm' }, { metadata: {} }, { metadata: { name: '' } }, { metadata: { name: 7 } }, { metadata: { name: null } }, { metadata: { name: ['a'] } }),
  fc.record({ metadata: fc.record({ name: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.object()) }) }),
);
const item = fc.oneof({ weight: 4, arbitrary: good.map((o) => ({ ok: true as const, o })) }, { weight: 1, arbitrary: bad.map((o) => ({ ok: false as const, o: o as KubeObject })) });
type Step = { e: ReflectorEvent; items: readonly { ok: boolean; o: KubeObject }[] };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.array(item, { maxLength: 6 }).map((items) => ({ e: { type: 'replace' as const, items: items.map((i) => i.o), resourceVersion: '1' }, items })),
  fc.tuple(fc.constantFrom('added' as const, 'modified' as const, 'deleted' as const), item).map(([type, i]) => ({ e: { type, object: i.o } as ReflectorEvent, items: [i] })),
  fc.constant({ e: { type: 'bookmark' as const, resourceVersion: '2' }, items: [] }),
);

const keyOf = (o: KubeObject): string => (o.metadata?.namespace ? `${o.metadata.namespace}/` : '') + (o.metadata?.name ?? '');

describe('fuzz: informer input', () => {
  it('malformed objects are reported and change nothing; the cache and subscribers match the model', () => {
    let runs = 0;
    let events = 0;
    let reported = 0;
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        runs++;
        const src = new Subject<ReflectorEvent>();
        const informer = sharedInformer(src);
        const errors: Error[] = [];
        informer.errors$.subscribe((e) => errors.push(e));
        const view = new Map<string, string>();
        const anomalies: string[] = [];
        informer.events$.subscribe((e: InformerEvent) => {
          if (e.type === 'delete') {
            const key = e.object instanceof DeletedFinalStateUnknown ? e.object.key : keyOf(e.object);
            if (!view.delete(key)) anomalies.push(`delete unknown ${key}`);
            return;
          }
          const key = keyOf(e.object);
          if (e.type === 'add' && view.has(key)) anomalies.push(`add existing ${key}`);
          if (e.type === 'update' && !view.has(key)) anomalies.push(`update unknown ${key}`);
          expect(e.object.metadata?.managedFields).toBeUndefined();
          view.set(key, e.object.metadata?.resourceVersion ?? '');
        });
        const model = new Map<string, string>();
        let synced = false;
        for (const { e, items } of steps) {
          events++;
          expect(() => src.next(e)).not.toThrow();
          if (e.type === 'replace') {
            synced = true;
            model.clear();
            for (const i of items) if (i.ok) model.set(keyOf(i.o), i.o.metadata?.resourceVersion ?? '');
          } else if (e.type !== 'bookmark' && items[0]?.ok === true) {
            const o = items[0].o;
            if (e.type === 'deleted') model.delete(keyOf(o));
            else model.set(keyOf(o), o.metadata?.resourceVersion ?? '');
          }
        }
        reported += errors.length;
        const bads = steps.filter((s) => s.items.some((i) => !i.ok)).length;
        if (bads > 0) expect(errors.length).toBeGreaterThan(0);
        expect(new Map(informer.store.list().map((o) => [keyOf(o), o.metadata?.resourceVersion ?? '']))).toEqual(model);
        expect(view).toEqual(model);
        expect(anomalies).toEqual([]);
        if (synced) expect(informer.hasSynced()).toBe(true); // (an add before any list also syncs, as client-go's DeltaFIFO)
        for (const o of informer.store.list()) expect(Object.isFrozen(o)).toBe(true);
      }),
      { numRuns: 600 },
    );
    report('informer / malformed reflector events', runs, `${events} events, ${reported} reported errors`);
  });
});
