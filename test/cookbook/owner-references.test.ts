/**
 * Cookbook, owner references (examples/cookbook/owner-references.ts): over HTTP against the
 * embedded API server running rxkube-controller-manager's garbage collector. The child carries a
 * controller reference to its Widget, a change to the child wakes the Widget (owns), and deleting
 * the Widget lets the garbage collector delete the child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InformerFactory, KubeClient } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';
import { widgetConfigController } from '../../examples/cookbook/owner-references.js';
import { WIDGET_CRD } from '../../examples/cookbook/widget.js';
import { until } from '../helpers/until.js';
import { widget } from './helpers.js';

describe('cookbook: owner references and garbage collection', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer({ controllers: { controllers: ['garbagecollector'] } });
    server.create(WIDGET_CRD);
    client = KubeClient.fromKubeConfig(server.kubeConfig);
  });
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('the ConfigMap is owned by its Widget, restored when tampered with, and collected with it', async () => {
    const stop = new AbortController();
    const informers = new InformerFactory(client, { namespace: 'default' });
    const done = widgetConfigController(client, informers).start(stop.signal);
    try {
      const owner = server.create(widget('w1', 3));
      const child = await until('w1-config', () => server.get('v1', 'ConfigMap', 'w1-config', 'default'));
      expect(child['data']).toEqual({ size: '3' });
      expect(child.metadata?.ownerReferences).toEqual([
        { apiVersion: 'cookbook.example.com/v1', kind: 'Widget', name: 'w1', uid: owner.metadata?.uid, controller: true, blockOwnerDeletion: true },
      ]);

      // owns: an edit of the child wakes its owner, whose apply puts the data back.
      server.update({ ...child, data: { size: '99' } });
      await until('w1-config restored', () => (server.get('v1', 'ConfigMap', 'w1-config', 'default')?.['data'] as { size?: string } | undefined)?.size === '3');

      server.delete('cookbook.example.com/v1', 'Widget', 'w1', 'default');
      await until('w1-config collected', () => server.get('v1', 'ConfigMap', 'w1-config', 'default') === undefined);
    } finally {
      stop.abort();
      await done;
      informers.stop();
    }
  }, 60_000);
});
