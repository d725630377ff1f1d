/**
 * Issue 26, finding 10 / deliverable 6: a reconcile that runs longer than the controller's stuck
 * threshold is logged, counted in `rxkube_controller_stuck_reconciles` and named by the manager's
 * `/healthz` (built-in liveness check `reconciles`) until it settles. Virtual time for the
 * controller; the probe server is real HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { controller } from '../../src/controller/controller.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { manager } from '../../src/manager/manager.js';
import { fakeSource } from '../../src/testing/controller-harness.js';
import { outcome, virtualTime } from '../manager/virtual-time.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name, resourceVersion: '1' } });

function recordingLogger(lines: { level: string; message: string; fields: LogFields }[], base: LogFields = {}): Logger {
  const at = (level: string) => (message: string, fields?: LogFields) => lines.push({ level, message, fields: { ...base, ...fields } });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (f) => recordingLogger(lines, { ...base, ...f }) };
}

describe('a stuck reconcile', () => {
  it('is logged, counted and named in /healthz while it runs past the threshold, and cleared when it settles', async () => {
    const vt = virtualTime();
    const lines: { level: string; message: string; fields: LogFields }[] = [];
    let release: (() => void) | undefined;
    const mgr = manager({ scheduler: vt.scheduler, logger: recordingLogger(lines), processMetrics: false, health: { port: 0 } });
    const ctrl = controller({
      name: 'stuck-unit',
      for: fakeSource({ resource: CONFIG_MAPS, initial: [cm('a')] }),
      scheduler: vt.scheduler,
      stuckReconcileThresholdMs: 1_000,
      reconcile: () => new Promise<void>((resolve) => (release = resolve)),
    });
    mgr.add(ctrl);
    const stop = new AbortController();
    const result = outcome(mgr.start(stop.signal));
    const address = await mgr.healthAddress();
    for (let i = 0; i < 100 && release === undefined; i++) await vt.advance(10);
    expect(release).toBeDefined();
    const healthz = async () => {
      const res = await fetch(`http://127.0.0.1:${address.port}/healthz`);
      return { status: res.status, body: await res.text() };
    };
    const gauge = async () => /rxkube_controller_stuck_reconciles\{controller="stuck-unit"\} (\d+)/.exec(await mgr.metrics.text())?.[1];

    await vt.advance(500);
    expect((await healthz()).status).toBe(200);
    expect(await gauge()).toBe('0');

    await vt.advance(1_000);
    const stuck = await healthz();
    expect(stuck.status).toBe(500);
    expect(stuck.body).toContain('[-]reconciles failed');
    expect(stuck.body).toMatch(/controller stuck-unit: reconcile of ns\/a \(reconcileID [0-9a-f-]+\) running for \d+ s \(threshold 1 s\)/);
    expect(await gauge()).toBe('1');
    const warned = lines.find((l) => l.message === 'reconcile is running longer than the stuck threshold');
    expect(warned?.level).toBe('warn');
    expect(warned?.fields).toMatchObject({ controller: 'stuck-unit', object: 'ns/a', thresholdMs: 1_000 });
    expect(warned?.fields['reconcileID']).toEqual(expect.any(String));

    release?.();
    await vt.advance(10);
    expect((await healthz()).status).toBe(200);
    expect(await gauge()).toBe('0');
    expect(lines.some((l) => l.message === 'stuck reconcile finished')).toBe(true);
    stop.abort();
    await vt.advance(100);
    expect(result.settled).toBe(true);
  });
});
