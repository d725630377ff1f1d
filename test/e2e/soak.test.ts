/**
 * The chaos soak (see soak/chaos-soak.ts), shorter, against a real kube-apiserver + etcd started by
 * shared/kube-apiserver/start.sh: a writer churns ConfigMaps over HTTP (creates, updates, label
 * moves across the selector, deletes) while kube-apiserver restarts (open watches drop) and etcd
 * is compacted (alone, and followed by a restart so resumes hit 410). The informer with its three
 * subscribers, the selector informer and the controller must converge to the server's state with
 * 0 violations. KUBECONFIG, RXKUBE_E2E_DIR and RXKUBE_E2E_SHARED are set by .ci/run.
 */
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { formatSoakReport, runSoak } from '../../soak/chaos-soak.js';
import type { SoakBackend } from '../../soak/soak-backend.js';
import { hasCluster, restartApiServer, compactEtcd } from './helpers/cluster.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

function kubeApiserverBackend(client: KubeClient, namespace: string): SoakBackend {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const cms = client.objects(CONFIGMAP, namespace);
  return {
    name: 'kube-apiserver',
    kubeConfig,
    namespace,
    list: async () => (await cms.list()).items,
    get: (name) => cms.get(name).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e))),
    create: async (o) => void (await cms.create(o)),
    update: async (o) => void (await cms.replace(o)),
    delete: async (name) => void (await cms.delete(name)),
    faults: [
      { kind: 'restart', fire: (r) => restartApiServer(r() < 0.5 ? 0 : 1) },
      { kind: 'compact', fire: async () => void (await compactEtcd()) },
      { kind: 'compactAndRestart', fire: async () => {
        await compactEtcd();
        await restartApiServer(0);
      } },
    ],
    clearFaults: () => undefined,
    close: () => Promise.resolve(),
  };
}

describe.skipIf(!hasCluster)('chaos soak against a real kube-apiserver', () => {
  let client: KubeClient;
  const ns = `rxkube-soak-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    client = KubeClient.fromDefault();
    await client.objects(NAMESPACE).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const cms = client.objects(CONFIGMAP, ns);
    for (let i = 0; i < 150; i++) {
      await cms.create({ metadata: { name: `cm-${i * 2}`, labels: { sel: i % 2 === 0 ? 'in' : 'out' } }, data: { v: '0' } });
    }
  });

  afterAll(async () => {
    await client?.objects(NAMESPACE).delete(ns).catch(() => undefined);
    client?.close();
  });

  it('converges to the server state with 0 violations through restarts and etcd compaction', async () => {
    const report = await runSoak({
      backend: kubeApiserverBackend(client, ns),
      durationMs: 45_000,
      keys: 300,
      opsPerTick: 1,
      faultEveryMs: 7_000,
      seed: 11,
      quiesceTimeoutMs: 60_000,
      checkEveryMs: 500,
      log: (l) => console.log(`[e2e soak] ${l}`),
    });
    for (const line of formatSoakReport(report)) console.log(`[e2e soak] ${line}`);
    expect(Object.values(report.faults).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
    expect(report.relists).toBeGreaterThan(2);
    expect(report.violations).toEqual([]);
  }, 240_000);
});
