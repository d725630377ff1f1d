/**
 * The consumer's mirror, tested by outcome in virtual time (@rxkube/testkit's `virtualTime` with
 * its in-process cluster): "eventually the copy exists with this data", not every reconcile's
 * frame. Both tests build the same controller (same name): names are unique per manager, not
 * per process. No casts, no `!`, no `any`.
 */
import { describe, expect, it } from 'vitest';
import { manager, type K8s } from 'rxkube';
import { virtualTime } from '@rxkube/testkit';
import { MIRROR_OF, mirrorController, SETTINGS } from './mirror-controller.js';

const configMap = (name: string, data: Record<string, string>): K8s.ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data });

describe('configmap mirror, by outcome in virtual time', () => {
  it('copies a named ConfigMap, follows its changes, and leaves the others alone', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually, converged }) => {
      cluster.seed([configMap(SETTINGS, { 'app-config': 'on' }), configMap('app-config', { mode: 'fast' }), configMap('private', { secret: 'no' })]);
      const ctrl = mirrorController({ informers: cluster.informers(), client: cluster.client, scheduler });
      manager({ client: cluster.client }).add(ctrl); // one manager: the name is taken there only
      start(ctrl);
      const copy = (name: string) => cluster.get('v1', 'ConfigMap', `${name}-mirror`, 'default');

      await eventually(() => expect(copy('app-config')?.['data']).toEqual({ mode: 'fast' }), { withinMs: 1_000, what: 'app-config is copied', state: () => copy('app-config') });
      expect(copy('app-config')?.metadata?.labels?.[MIRROR_OF]).toBe('app-config');
      scheduler.schedule(() => void cluster.update(configMap('app-config', { mode: 'safe' })), 10);
      await eventually(() => expect(copy('app-config')?.['data']).toEqual({ mode: 'safe' }), { withinMs: 1_000, what: 'the copy follows its source' });
      const { reconciles } = await converged();
      expect(copy('private')).toBeUndefined();
      expect(reconciles.every((r) => r.outcome.kind === 'success')).toBe(true);
    });
  });

  it('deletes the copy once its source is no longer named (the same controller, built again)', async () => {
    await virtualTime(async ({ cluster, scheduler, start, eventually }) => {
      cluster.seed([configMap(SETTINGS, { 'app-config': 'on' }), configMap('app-config', { mode: 'fast' })]);
      const ctrl = mirrorController({ informers: cluster.informers(), client: cluster.client, scheduler });
      manager({ client: cluster.client }).add(ctrl);
      start(ctrl);
      const copy = () => cluster.get('v1', 'ConfigMap', 'app-config-mirror', 'default');

      await eventually(() => copy() !== undefined, { withinMs: 1_000, what: 'app-config is copied' });
      scheduler.schedule(() => void cluster.update(configMap(SETTINGS, { 'app-config': 'off' })), 10);
      await eventually(() => copy() === undefined, { withinMs: 1_000, what: 'the copy is deleted', state: copy });
    });
  });
});
