/** crdKinds / crdWatches: the set of established, labelled CRD kinds as a value over time (virtual time). */
import { map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type * as K8s from '../../src/api/builtin-types.js';
import type { ListPage, WatchEvent } from '../../src/api/list-watcher.js';
import { crdKinds, crdWatches, servedKind } from '../../src/controller/crd-watches.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { marbles } from '../helpers/marbles.js';

function crd(kind: string, opts: { established?: boolean; deleting?: boolean; rv?: string; versions?: K8s.CustomResourceDefinition['spec']['versions'] } = {}): K8s.CustomResourceDefinition {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com`, resourceVersion: opts.rv ?? '1', ...(opts.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      group: 'example.com',
      names: { kind, plural },
      scope: 'Namespaced',
      versions: opts.versions ?? [{ name: 'v1', served: true, storage: true }],
    },
    status: { conditions: opts.established === false ? [] : [{ type: 'Established', status: 'True' }], acceptedNames: { kind, plural }, storedVersions: ['v1'] },
  } as K8s.CustomResourceDefinition;
}

describe('crdKinds', () => {
  it('servedKind: established, not deleting, the served storage version', () => {
    expect(servedKind(crd('Widget'))).toEqual({ apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets', namespaced: true });
    expect(servedKind(crd('Widget', { established: false }))).toBeUndefined();
    expect(servedKind(crd('Widget', { deleting: true }))).toBeUndefined();
    const versions = [
      { name: 'v1', served: true, storage: false },
      { name: 'v2', served: true, storage: true },
    ];
    expect(servedKind(crd('Widget', { versions }))?.apiVersion).toBe('example.com/v2');
  });

  it(
    'follows CRDs: established ones join, a deleted (or deleting) one leaves; the label selector is passed to the list and watch',
    marbles((m) => {
      const events$ = m.hot<WatchEvent>('--a---b---c---d', {
        a: { type: 'ADDED', object: crd('Widget', { established: false, rv: '2' }) },
        b: { type: 'MODIFIED', object: crd('Widget', { rv: '3' }) },
        c: { type: 'ADDED', object: crd('Gadget', { rv: '4' }) },
        d: { type: 'MODIFIED', object: crd('Widget', { deleting: true, rv: '5' }) },
      });
      const selectors: (string | undefined)[] = [];
      const informers = new InformerFactory(
        (_resource, scope) => {
          selectors.push(scope.labelSelector);
          return { list: () => of<ListPage>({ items: [], resourceVersion: '1' }), watch: () => events$ };
        },
        { scheduler: m.scheduler },
      );
      const names = crdKinds(informers, { labelSelector: 'example.com/for=me' }).pipe(map((kinds) => kinds.map((k) => k.kind).join(',')));
      m.expect(names, '^ 30ms !').toBeObservable('e-----w---x---d', {
        e: '',
        w: 'Widget',
        x: 'Gadget,Widget',
        d: 'Gadget',
      });
      m.flush();
      expect(selectors).toEqual(['example.com/for=me']);
    }),
  );

  it(
    'crdWatches keeps the same spec object for a kind while it stays',
    marbles((m) => {
      const events$ = m.hot<WatchEvent>('--c', { c: { type: 'ADDED', object: crd('Gadget', { rv: '4' }) } });
      const informers = new InformerFactory(() => ({ list: () => of<ListPage>({ items: [crd('Widget')], resourceVersion: '1' }), watch: () => events$ }), {
        scheduler: m.scheduler,
      });
      let made = 0;
      const specs: (readonly unknown[])[] = [];
      const sub = crdWatches(informers, {
        watch: (kind) => (made++, { source: kind, map: () => [] }),
      }).subscribe((s) => specs.push(s));
      m.scheduler.schedule(() => sub.unsubscribe(), 10);
      m.flush();
      expect(made).toBe(2);
      expect(specs).toHaveLength(2);
      expect(specs[1]).toContain(specs[0]?.[0]);
    }),
  );
});
