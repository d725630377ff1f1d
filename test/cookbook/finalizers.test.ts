/**
 * Cookbook, finalizers (examples/cookbook/finalizers.ts), in virtual time against the in-process
 * cluster: the finalizer is added before the registry entry is written, a delete leaves the Widget
 * terminating until the entry is removed, then the finalizer goes and with it the Widget.
 */
import { describe, expect, it } from 'vitest';
import { virtualTime } from '@rxkube/testkit';
import { FINALIZER, REGISTRY_NAMESPACE, widgetRegistryController } from '../../examples/cookbook/finalizers.js';
import { WIDGET_CRD } from '../../examples/cookbook/widget.js';
import { widget } from './helpers.js';

describe('cookbook: finalizers', () => {
  it('adds the finalizer, writes the entry; on delete removes the entry, then the finalizer', async () => {
    await virtualTime(
      async ({ cluster, scheduler, start, eventually, converged }) => {
        cluster.create(WIDGET_CRD);
        cluster.create(widget('w', 1, 'apps'));
        const get = () => cluster.get('cookbook.example.com/v1', 'Widget', 'w', 'apps');
        const entry = () => cluster.get('v1', 'ConfigMap', 'apps.w', REGISTRY_NAMESPACE);
        start(widgetRegistryController(cluster.client, cluster.informers()));

        await eventually(() => entry() !== undefined, { what: 'registry entry written' });
        expect(get()?.metadata?.finalizers).toEqual([FINALIZER]);
        await converged();

        // Someone deletes the Widget: the API server only marks it (a finalizer is pending).
        const marked = cluster.delete('cookbook.example.com/v1', 'Widget', 'w', 'apps');
        expect(marked?.metadata?.deletionTimestamp).toBeDefined();
        expect(get()).toBeDefined();
        await eventually(() => get() === undefined, { what: 'the Widget is gone', state: () => get()?.metadata });
        expect(entry()).toBeUndefined();
        await converged();
        expect(scheduler.now()).toBeLessThan(1_000);
      },
      { cluster: { namespaces: ['default', 'apps', REGISTRY_NAMESPACE] } },
    );
  });
});
