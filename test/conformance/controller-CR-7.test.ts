/** docs/semantics.md §8.4 CR-7: builder validation, naming, predicate scope, owns for every owner. */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { labelSelectorPredicate } from '../../src/informer/predicates.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ControllerBuildError } from '../../src/controller/controller-errors.js';
import { controller } from '../../src/controller/controller.js';
import { manager } from '../../src/manager/manager.js';
import { DuplicateControllerNameError } from '../../src/manager/manager-errors.js';
import { added, fakeSource } from '../../src/testing/controller-harness.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespaced: true };
const SECRET = { apiVersion: 'v1', kind: 'Secret', namespaced: true };
const reconcile = () => undefined;
let n = 0;
const name = () => `cr7-${++n}`;

describe('CR-7 builder', () => {
  it('for may be given only once', () => {
    const a = fakeSource({ resource: CM });
    const b = fakeSource({ resource: SECRET });
    expect(() => controller({ name: name(), for: [a, b] as never, reconcile })).toThrow(/should only be given once/);
  });

  it('owns without for is an error', () => {
    expect(() => controller({ name: name(), owns: [fakeSource({ resource: SECRET })], reconcile })).toThrow(
      new ControllerBuildError('owns can only be used together with for'),
    );
  });

  it('no for and no watches is an error', () => {
    expect(() => controller({ name: name(), reconcile })).toThrow(/there are no watches configured/);
  });

  it('name defaults to the lower-case kind of for; neither for nor name is an error', () => {
    const c = controller({ for: fakeSource({ resource: { apiVersion: 'example.com/v1', kind: 'WidgetCR7', namespaced: true } }), reconcile });
    expect(c.name).toBe('widgetcr7');
    const w = { source: fakeSource({ resource: SECRET }), map: () => [] };
    expect(() => controller({ watches: [w], reconcile })).toThrow(/one of for or name must be given/);
  });

  it('names are unique per manager, not per process, unless skipNameValidation; a reconciler is required', () => {
    const src = fakeSource({ resource: CM });
    // The same controller built twice in one process (two tests of one file): no error.
    const first = controller({ name: 'configmap-mirror', for: src, reconcile });
    const second = controller({ name: 'configmap-mirror', for: src, reconcile });
    const mgr = manager({ processMetrics: false, logLevel: 'off' });
    mgr.add(first);
    const err = (() => {
      try {
        mgr.add(second);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(DuplicateControllerNameError);
    expect(err).toMatchObject({ code: 'MANAGER_DUPLICATE_CONTROLLER_NAME', controller: 'configmap-mirror', manager: 'manager' });
    expect((err as Error).message).toMatch(/manager: a controller named configmap-mirror was already added/);
    // Another manager takes it; a controller built with skipNameValidation shares the name.
    manager({ processMetrics: false, logLevel: 'off' }).add(second);
    expect(() => mgr.add(controller({ name: 'configmap-mirror', for: src, reconcile, skipNameValidation: true }))).not.toThrow();
    expect(() => controller({ name: name(), for: src } as never)).toThrow(/reconcile function/);
  });

  it('an option controller() does not read is an error naming it, not silently dropped (a sharded controller\'s sharding included)', () => {
    const src = fakeSource({ resource: CM });
    const sharding = { ring: 'r', shard: 's0', leaseNamespace: 'ns' };
    const err = (() => {
      try {
        controller({ name: name(), for: src, reconcile, sharding } as never);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ControllerBuildError);
    expect((err as ControllerBuildError).option).toBe('sharding');
    expect((err as Error).message).toMatch(/unknown option sharding .*shardedController/);
    expect(() => controller({ name: name(), for: src, reconcile, concurrncy: 2, informer: undefined } as never)).toThrow(/unknown option concurrncy \(/);
    // An undefined value is no option given (spreads of partial options stay valid).
    expect(() => controller({ name: name(), for: src, reconcile, sharding: undefined } as never)).not.toThrow();
  });

  it(
    'controller-wide predicates apply to for, owns and watches; per-source predicates only to their source',
    marbles((m) => {
      const keep = (o: KubeObject, ...labels: string[]): KubeObject => ({
        ...o,
        metadata: { ...o.metadata, labels: Object.fromEntries(labels.map((l) => [l, 'y'])) },
      });
      const cm = (nm: string, ...labels: string[]) => keep({ metadata: { namespace: 'ns', name: nm } }, ...labels);
      const cms = fakeSource({
        resource: CM,
        events$: m.hot('-ab', { a: added(cm('a', 'keep', 'cm')), b: added(cm('b', 'keep')) }),
      });
      const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', controller: true };
      const secret = (nm: string, ...labels: string[]) => keep({ metadata: { namespace: 'ns', name: nm, ownerReferences: [owner] } }, ...labels);
      const secrets = fakeSource({ resource: SECRET, events$: m.hot('---cd', { c: added(secret('s1')), d: added(secret('s2', 'keep')) }) });
      const others = fakeSource({ resource: { apiVersion: 'v1', kind: 'Pod', namespaced: true }, events$: m.hot('-----ef', { e: added(cm('w1')), f: added(cm('w2', 'keep')) }) });
      const c = controller({
        name: name(),
        for: { source: cms, predicates: [labelSelectorPredicate('cm')] },
        owns: [secrets],
        watches: [{ source: others, map: (o) => [{ namespace: 'ns', name: `from-${o.metadata?.name}` }] }],
        predicates: [labelSelectorPredicate('keep')],
        scheduler: m.scheduler,
        reconcile,
      });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('-a--o-f', { a: 'a', o: 'o', f: 'from-w2' });
    }),
  );

  it(
    'owns with matchEveryOwner reconciles every owner of the for type',
    marbles((m) => {
      const refs = ['x', 'y', 'z'].map((nm, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: nm, uid: nm, controller: i === 0 }));
      const secrets = fakeSource<KubeObject>({
        resource: SECRET,
        events$: m.hot('-a', { a: added({ metadata: { namespace: 'ns', name: 's', ownerReferences: refs } }) }),
      });
      const c = controller({
        name: name(),
        for: fakeSource({ resource: CM }),
        owns: [{ source: secrets, matchEveryOwner: true }],
        scheduler: m.scheduler,
        reconcile,
      });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('-(xyz)');
    }),
  );
});
