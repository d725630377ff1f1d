// Tests the Widget status controller (status-conditions.ts) unchanged, in virtual time: an API
// server in this process, a clock that jumps from timer to timer, and assertions on the outcome.
import { describe, expect, it } from 'vitest';
import { conditions } from 'rxkube';
import { virtualTime } from '@rxkube/testkit';
import { widgetStatusController } from './status-conditions.js';
import { WIDGET_CRD, WIDGETS, type Widget } from './widget.js';

describe('widget status controller', () => {
  it('reports Ready, after retrying a refused status write', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually, converged }) => {
      cluster.create(WIDGET_CRD);
      cluster.create({ apiVersion: WIDGETS.apiVersion, kind: WIDGETS.kind, metadata: { name: 'w', namespace: 'default' }, spec: { size: 3 } });
      cluster.faults.failNext({ method: 'PATCH', code: 500, count: 1 }); // the first status write fails
      const widget = (): Widget | undefined => cluster.get(WIDGETS.apiVersion, WIDGETS.kind, 'w', 'default') as Widget | undefined;
      const ctl = start(widgetStatusController(cluster.client, cluster.informers(), scheduler));

      await eventually(() => conditions.isTrue(widget()?.status?.conditions, 'Ready'), {
        withinMs: 1_000, //                    a budget of virtual time, not of the test's wall clock
        what: 'w is Ready', //                 the failure message names it …
        state: () => widget()?.status, //      … and shows what was last seen
      });
      expect(ctl.outcomes.map((o) => o.kind)).toEqual(['error', 'success']); // retried after a backoff
      expect(scheduler.now()).toBeLessThan(100); //                             of 5 ms, on the virtual clock

      const { reconciles, pendingRequeues } = await converged(); // until nothing is due soon
      expect(reconciles.every((r) => r.outcome.kind === 'success')).toBe(true); // since `eventually`: its own write's event
      expect(pendingRequeues).toEqual([]);
    });
  });
});
