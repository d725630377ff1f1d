/**
 * Cookbook, read-your-writes (examples/cookbook/read-your-writes.ts), in virtual time against an
 * in-process cluster whose watch events arrive 50 ms after each write (a lagging cache). The
 * Widget is edited while its snapshot's create is on its way to the cache: with read-your-writes
 * (the default) it gets one snapshot; with it off, the reconciles in between read a cache without
 * the snapshot and create more.
 */
import { describe, expect, it } from 'vitest';
import { virtualTime } from '@rxkube/testkit';
import { widgetSnapshotController } from '../../examples/cookbook/read-your-writes.js';
import { WIDGET_CRD } from '../../examples/cookbook/widget.js';
import { widget } from './helpers.js';

async function snapshotsAfterEdits(readYourWrites: boolean): Promise<number> {
  let count = 0;
  await virtualTime(
    async ({ cluster, scheduler, start, converged }) => {
      cluster.create(WIDGET_CRD);
      start(widgetSnapshotController(cluster.client, cluster.informers(), readYourWrites));
      scheduler.schedule(() => void cluster.create(widget('w', 1)), 1_000);
      // The create is seen at 1 050 and the snapshot written then; the edits are seen at 1 060-1 080,
      // the snapshot only at 1 100.
      for (const at of [1_010, 1_020, 1_030]) {
        scheduler.schedule(() => {
          const w = cluster.get('cookbook.example.com/v1', 'Widget', 'w', 'default');
          cluster.update({ ...w, metadata: { ...w?.metadata, labels: { edited: String(at) } } });
        }, at);
      }
      await converged({ withinMs: 20_000 });
      count = cluster.list('v1', 'ConfigMap', 'default').filter((cm) => cm.metadata?.name?.startsWith('w-')).length;
    },
    { cluster: { watchLatencyMs: 50 } },
  );
  return count;
}

describe('cookbook: read-your-writes', () => {
  it('on (the default): one snapshot, however often the Widget changes meanwhile', async () => {
    expect(await snapshotsAfterEdits(true)).toBe(1);
  });

  it('off: the reconciles before the cache shows the snapshot create more (why it is on)', async () => {
    expect(await snapshotsAfterEdits(false)).toBeGreaterThan(1);
  });
});
