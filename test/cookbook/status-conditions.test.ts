/**
 * Cookbook, status conditions (examples/cookbook/status-conditions.ts), in virtual time against
 * the in-process cluster: the Ready condition follows the spec with its observedGeneration, its
 * lastTransitionTime moves only on a change of status, and an unchanged status is not written.
 */
import { describe, expect, it } from 'vitest';
import type { Condition, KubeObject } from 'rxkube';
import { virtualTime } from '@rxkube/testkit';
import { widgetStatusController } from '../../examples/cookbook/status-conditions.js';
import { WIDGET_CRD } from '../../examples/cookbook/widget.js';
import { widget } from './helpers.js';

describe('cookbook: status conditions', () => {
  it('sets Ready from the spec; lastTransitionTime moves only when the status does', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually, converged }) => {
      cluster.create(WIDGET_CRD);
      const get = (): KubeObject | undefined => cluster.get('cookbook.example.com/v1', 'Widget', 'w', 'default');
      const ready = (): Condition | undefined => ((get() as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? []).find((c) => c.type === 'Ready');
      const resize = (size: number): void => void cluster.update({ ...get(), spec: { size } });
      scheduler.schedule(() => void cluster.create(widget('w', 3)), 2_000);
      start(widgetStatusController(cluster.client, cluster.informers(), scheduler));

      await eventually(() => expect(ready()).toMatchObject({ status: 'True', reason: 'SizeAccepted', observedGeneration: 1 }), { what: 'Ready=True' });
      expect(ready()?.lastTransitionTime).toBe('1970-01-01T00:00:02Z'); // the virtual clock, whole seconds

      scheduler.schedule(() => resize(5), 3_000); // still ready: new message and generation, same transition time
      await eventually(() => expect(ready()).toMatchObject({ status: 'True', message: 'size 5', observedGeneration: 2 }), { what: 'Ready follows generation 2' });
      expect(ready()?.lastTransitionTime).toBe('1970-01-01T00:00:02Z');

      scheduler.schedule(() => resize(50), 3_000); // a transition
      await eventually(() => expect(ready()).toMatchObject({ status: 'False', reason: 'TooLarge', observedGeneration: 3 }), { what: 'Ready=False' });
      expect(ready()?.lastTransitionTime).toBe('1970-01-01T00:00:08Z');
      expect((get() as { status?: { observedGeneration?: number } } | undefined)?.status?.observedGeneration).toBe(3);

      // Its own status writes wake the controller again; those reconciles change nothing and send nothing.
      await converged();
      expect(cluster.requests.count({ method: 'PATCH' })).toBe(3);
    });
  });
});
