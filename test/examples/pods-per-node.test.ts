/** Tier 2: the pods-per-node example plays its scenario against the embedded API server. */
import { describe, expect, it } from 'vitest';
import { renderTable, runPodsPerNode, type Table } from '../../examples/pods-per-node.js';

const row = (pending: number, running: number, succeeded: number, failed: number) => ({
  Pending: pending,
  Running: running,
  Succeeded: succeeded,
  Failed: failed,
  Unknown: 0,
});

describe('pods-per-node example', () => {
  it('keeps the table of pods per node and phase current through the scenario', async () => {
    const lines: string[] = [];
    const table = await runPodsPerNode({ write: (l) => lines.push(l) });
    expect(Object.fromEntries(table)).toEqual({
      '(no node)': row(1, 1, 1, 0), // the unscheduled pod, and node-b's two pods after node-b went
      'node-a': row(0, 2, 0, 0),
      'node-c': row(1, 1, 0, 1), // cache-1 was recreated here (Pending)
    });
    const text = lines.join('\n');
    // The table was printed between the steps, e.g. node-a with its three pods Running before cache-1 moved.
    expect(text).toMatch(/node-a +0 +3 +0 +0 +0 +3/);
    expect(text).toMatch(/node-b +0 +1 +1 +0 +0 +2/);
    expect(text.indexOf('node-b is removed')).toBeGreaterThan(0);
  }, 60_000);

  it('renders rows sorted by node with a total column', () => {
    const t: Table = new Map([
      ['n2', row(0, 1, 0, 0)],
      ['n1', row(2, 0, 0, 1)],
    ]);
    expect(renderTable(t).split('\n')).toEqual([
      'NODE  PENDING  RUNNING  SUCCEEDED  FAILED  UNKNOWN  TOTAL',
      'n1    2        0        0          1       0        3',
      'n2    0        1        0          0       0        1',
    ]);
  });
});
