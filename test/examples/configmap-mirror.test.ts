/**
 * The ConfigMap mirror example: its demo on the embedded API server (real HTTP, real time), and
 * its unchanged async reconciler in virtual time against the in-process cluster.
 */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ReconcileOutcome } from '../../src/index.js';
import { virtualTime } from '../../packages/testkit/src/virtual-time.js';
import { runMirrorDemo } from '../../examples/configmap-mirror/demo.js';
import { configMapMirror, FROM } from '../../examples/configmap-mirror/mirror-controller.js';

const cm = (namespace: string, name: string, labels: Record<string, string>, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels },
  data,
} as KubeObject);
const assertDeepEqual = (actual: unknown, expected: unknown): void => void expect(actual).toEqual(expected);
const outcome = (o: ReconcileOutcome): string => `${o.request.name} ${o.kind}`;

describe('configmap-mirror example', () => {
  it('demo: copies, follows changes, deletes copies whose source is gone, leaves other ConfigMaps alone', async () => {
    const lines: string[] = [];
    const left = await runMirrorDemo((l) => lines.push(l));
    expect(left).toEqual(['feature-flags={"beta":"on"}', 'hand-made={"mine":"yes"}']);
    expect(lines[0]).toContain('start');
  });

  it('the unchanged async reconciler, in virtual time, to the frame', async () => {
    await virtualTime(
      async ({ cluster, scheduler, expectObservable, flush }) => {
        cluster.seed([
          cm('src', 'a', { mirror: 'true' }, { v: '1' }),
          cm('src', 'private', {}, { v: 'x' }),
          cm('dst', 'stale', { [FROM]: 'src' }, { v: 'old' }),
          cm('dst', 'hand-made', {}, { v: 'mine' }),
        ]);
        const get = (ns: string, name: string): KubeObject | undefined => cluster.get('v1', 'ConfigMap', name, ns);
        const at = (frame: number, write: () => unknown): void => void scheduler.schedule(() => void write(), frame);
        at(20, () => cluster.update({ ...get('src', 'a'), data: { v: '2' } })); //                       a changes
        at(40, () => cluster.update({ ...get('dst', 'a'), data: { v: 'tampered' } })); //                 someone edits the copy
        const restored: unknown[] = [];
        at(50, () => restored.push((get('dst', 'a') as { data?: unknown } | undefined)?.data)); //       the copy was put back
        at(60, () => cluster.create(cm('src', 'b', { mirror: 'true' }, { v: 'b' }))); //                 b appears
        at(80, () => cluster.update({ ...get('src', 'a'), metadata: { ...get('src', 'a')?.metadata, labels: {} } })); // a stops matching
        at(100, () => cluster.delete('v1', 'ConfigMap', 'b', 'src')); //                                  b is deleted

        const ctl = configMapMirror({ client: cluster.client, informers: cluster.informers(), from: 'src', to: 'dst', scheduler });
        // A group `(aA)` emits at its first frame and spans as many frames as it has characters.
        // Each write of the controller comes back as a watch event of its copy, and wakes the
        // source again (a no-op apply, or nothing to delete): the second outcome of each group.
        expectObservable(ctl.run().pipe(map(outcome)), '^ 200ms !').toBe(
          '(asAS) 14ms (aA) 16ms (aA) 16ms (bB) 16ms (aA) 16ms (bB)',
          { a: 'a success', A: 'a success', s: 'stale success', S: 'stale success', b: 'b success', B: 'b success' },
        );
        await flush();
        expect(restored).toEqual([{ v: '2' }]);
        const mirror = cluster.list('v1', 'ConfigMap', 'dst').map((o) => o.metadata?.name);
        expect(mirror).toEqual(['hand-made']);
        expect(cluster.requests.count({ method: 'DELETE' })).toBe(3); // stale, a, b
      },
      { assertDeepEqual, cluster: { namespaces: ['default', 'src', 'dst'] } },
    );
  });

  it('the unchanged async reconciler, asserted by outcome: eventually the copy exists with the data', async () => {
    await virtualTime(
      async ({ cluster, scheduler, start, eventually, converged }) => {
        cluster.seed([cm('from', 'a', { mirror: 'true' }, { v: '1' }), cm('to', 'stale', { [FROM]: 'from' }, { v: 'old' })]);
        const copy = (name: string): unknown => (cluster.get('v1', 'ConfigMap', name, 'to') as { data?: unknown } | undefined)?.data;
        start(configMapMirror({ client: cluster.client, informers: cluster.informers(), from: 'from', to: 'to', scheduler }));

        await eventually(() => expect(copy('a')).toEqual({ v: '1' }), { withinMs: 100, what: 'to/a is a copy of from/a' });
        await eventually(() => expect(copy('stale')).toBeUndefined(), { withinMs: 100, what: 'the stale copy is deleted' });
        scheduler.schedule(() => void cluster.update({ ...cluster.get('v1', 'ConfigMap', 'a', 'from'), data: { v: '2' } }), 10);
        await eventually(() => expect(copy('a')).toEqual({ v: '2' }), { withinMs: 100, what: 'to/a follows from/a', state: () => copy('a') });
        const { reconciles } = await converged();
        expect(reconciles.every((r) => r.outcome.kind === 'success')).toBe(true);
      },
      { cluster: { namespaces: ['default', 'from', 'to'] } },
    );
  });
});
