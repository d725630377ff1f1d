/**
 * The controller over the real shared informer, fed by a fake reflector in virtual time: the
 * informer's listener `synced$` gates the first reconcile (CR-5), two registrations (`for` and
 * `owns` of one type) share one informer, and the cache the reconcile reads is current.
 */
import { defer, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { objectPredicate } from '../../src/informer/predicates.js';
import { controller } from '../../src/controller/controller.js';
import { informerSource } from '../../src/controller/informer-source.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { marbles } from '../helpers/marbles.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string, rv: string, owner?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    namespace: 'ns',
    name,
    resourceVersion: rv,
    ...(owner === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: owner, controller: true }] }),
  },
});

describe('controller over a shared informer', () => {
  it(
    'reconciles after the initial list is cached, then follows watch events; for and owns share the informer',
    marbles((m) => {
      let subscriptions = 0;
      const reflector$ = m.cold<ReflectorEvent>('---r--a--o', {
        r: { type: 'replace', items: [cm('a', '1')], resourceVersion: '1' },
        a: { type: 'modified', object: cm('a', '2') },
        o: { type: 'added', object: cm('child', '3', 'a') },
      });
      const informer = sharedInformer(
        defer(() => {
          subscriptions++;
          return reflector$;
        }),
        { scheduler: m.scheduler, name: 'cms' },
      );
      const source = informerSource(informer, CM);
      const seen: string[] = [];
      const c = controller({
        name: 'over-informer',
        for: { source, predicates: [objectPredicate((o) => o.metadata?.ownerReferences === undefined)] },
        owns: [source],
        scheduler: m.scheduler,
        reconcile: (req, ctx) => void seen.push(`${req.name}@${m.scheduler.now()} rv=${ctx.object?.metadata?.resourceVersion}`),
      });
      m.expect(c.run().pipe(map((o) => o.request.name))).toBeObservable('---a--a--a');
      m.flush();
      expect(seen).toEqual(['a@3 rv=1', 'a@6 rv=2', 'a@9 rv=2']);
      expect(subscriptions).toBe(1);
    }),
  );
});
