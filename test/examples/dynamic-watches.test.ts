/** The dynamic-watches example on the embedded API server: CRDs labelled for the stamper come and go. */
import { describe, expect, it } from 'vitest';
import { runDynamicWatchesDemo } from '../../examples/dynamic-watches/main.js';
import { requestOf } from '../../examples/dynamic-watches/stamp-controller.js';

describe('dynamic-watches example', () => {
  it('stamps the objects of a labelled CRD created after the start, drops it when deleted, watches it again when re-created', async () => {
    const lines: string[] = [];
    const result = await runDynamicWatchesDemo((l) => lines.push(l));
    expect(result.stamped).toContain('Gadget/default/g1');
    expect(result.stamped).toContain('Gadget/default/g2');
    expect(result.stamped.some((s) => s.startsWith('Gizmo/'))).toBe(false);
    expect(result.gizmoStamp).toBeUndefined();
    expect(result.leasedAfterDelete).toEqual([]);
    expect(result.gadgetsAfterDelete).toBe(0);
  }, 60_000);

  it('requests carry the kind after an @', () => {
    const kind = { apiVersion: 'example.com/v1', kind: 'Gadget', plural: 'gadgets', namespaced: true };
    expect(requestOf(kind, { metadata: { namespace: 'ns', name: 'g' } })).toEqual({ namespace: 'ns', name: 'g@gadgets.example.com' });
  });
});
