/**
 * Tier 2: a controller run by the manager (informer factory as its cache runnable, the manager's
 * event recorder and metrics registry) against the embedded API server.
 */
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import { manager } from '../../src/manager/manager.js';
import { startApiServer } from '@rxkube/testkit';
import { CONFIG_MAPS, type ConfigMap, mirrorController, mirrorName } from './widget-controller.js';
import { labelSelectorPredicate } from '../../src/informer/predicates.js';
import { eventually } from '../helpers/eventually.js';

describe('controller in a manager', () => {
  it('starts after the caches synced, reconciles, records events and metrics, and stops with the manager', async () => {
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    try {
      const cms = client.objects<ConfigMap>(CONFIG_MAPS, 'default');
      await cms.create({ metadata: { name: 'pre', labels: { src: 'y' } }, data: { a: '1' } });
      const mgr = manager({ client });
      const factory = new InformerFactory(client, { namespace: 'default' });
      const ctrl = mirrorController({
        name: 'cm-mirror-mgr',
        for: { source: CONFIG_MAPS, predicates: [labelSelectorPredicate('src=y')] },
        sourceResource: CONFIG_MAPS,
        informers: factory,
        client: mgr.client,
        recorder: mgr.getEventRecorder('cm-mirror-mgr'),
        metricsRegistry: mgr.metrics.registry,
      });
      mgr.add(factory.runnable());
      mgr.add(ctrl);
      mgr.addReadyzCheck('cm-mirror-mgr', ctrl.readyCheck);
      const stop = new AbortController();
      const running = mgr.start(stop.signal);

      await eventually(() => expect(server.get('v1', 'ConfigMap', mirrorName('pre'), 'default')).toMatchObject({ data: { a: '1' } }));
      expect(() => ctrl.readyCheck()).not.toThrow();
      await cms.create({ metadata: { name: 'live', labels: { src: 'y' } }, data: { b: '2' } });
      await eventually(() => expect(server.get('v1', 'ConfigMap', mirrorName('live'), 'default')).toMatchObject({ data: { b: '2' } }));
      await eventually(() =>
        // events.k8s.io/v1, which the embedded server serves (core/v1 where it is not).
        expect(server.list('events.k8s.io/v1', 'Event', 'default').map((e) => `${e.reason}:${(e.regarding as { name: string }).name}`).sort()).toEqual([
          'Created:live',
          'Created:pre',
        ]),
      );
      const text = await mgr.metrics.text();
      expect(text).toMatch(/controller_runtime_reconcile_total\{controller="cm-mirror-mgr",result="success"\} [1-9]/);

      stop.abort();
      await running;
      expect(() => ctrl.readyCheck()).toThrow(/not running/);
      // stopped: a new source gets no mirror
      await cms.create({ metadata: { name: 'after', labels: { src: 'y' } }, data: { c: '3' } });
      await new Promise((r) => setTimeout(r, 200));
      expect(server.get('v1', 'ConfigMap', mirrorName('after'), 'default')).toBeUndefined();
    } finally {
      client.close();
      await server.close();
    }
  });
});
