/**
 * Clusters that come and go, over three embedded API servers (real HTTP, TLS, tokens): the fleet
 * is read from kubeconfig Secrets on the home server (`kubeconfigSecretClusters`), ConfigMaps
 * churn on every server, and clusters leave (Secret deleted), rejoin (Secret created again) and
 * change (Secret updated) under that load. No reconcile of a cluster starts after its removal is
 * observed; a rejoined cluster is served again; a broken kubeconfig is reported and skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { KubeconfigSecretError } from '../../src/controller/cluster-errors.js';
import { controller } from '../../src/controller/controller.js';
import { DEFAULT_KUBECONFIG_SECRET_SELECTOR, kubeconfigSecretClusters } from '../../src/controller/kubeconfig-secret-clusters.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import type { Logger } from '../../src/logging/logger.js';
import type { KubeObject } from '../../src/api/kube-object.js';
import { type ApiServer, startApiServer } from '@rxkube/testkit';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const LABEL = DEFAULT_KUBECONFIG_SECRET_SELECTOR.split('=')[0] as string;
const secretOf = (name: string, kubeconfig: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'fleet', labels: { [LABEL]: 'true' } },
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  }) as KubeObject;

/** One line per reconcile start and per fleet change, in the order they happened. */
type Line = { readonly kind: 'start'; readonly cluster: string; readonly name: string } | { readonly kind: 'let go' | 'serving'; readonly cluster: string; readonly why?: string };

function fleetLogger(lines: Line[]): Logger {
  const make = (): Logger =>
    ({
      debug: () => undefined,
      info: (msg: string, fields?: Record<string, unknown>) => {
        const cluster = fields?.['cluster'];
        if (typeof cluster !== 'string') return;
        if (msg === 'cluster let go') lines.push({ kind: 'let go', cluster, why: String(fields?.['why']) });
        else if (msg.startsWith('cluster serving')) lines.push({ kind: 'serving', cluster });
      },
      warn: () => undefined,
      error: () => undefined,
      child: () => make(),
    }) as unknown as Logger;
  return make();
}

describe('clusters from kubeconfig Secrets, joining and leaving under load', () => {
  const servers: ApiServer[] = [];
  let home: KubeClient;
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) servers.push(await startApiServer({ token: true, tls: true, namespaces: ['default', 'fleet'] }));
    home = KubeClient.fromKubeConfig((servers[0] as ApiServer).kubeConfig);
  });
  afterAll(async () => {
    home?.close();
    for (const s of servers) await s.close();
  });

  it('serves each Secret’s cluster, lets a removed one go for good, serves it again when it rejoins', async () => {
    const [alpha, beta, gamma] = servers as [ApiServer, ApiServer, ApiServer];
    const byName: Record<string, ApiServer> = { alpha, beta, gamma };
    const lines: Line[] = [];
    const skipped: KubeconfigSecretError[] = [];
    const homeInformers = new InformerFactory(home, { namespace: 'fleet' });
    const fleet = kubeconfigSecretClusters(homeInformers, { namespace: 'fleet', onError: (e) => skipped.push(e) });
    const ctl = controller({
      name: 'fleet-mirror',
      for: resources.configMaps,
      clusters: fleet,
      concurrency: 4,
      needLeaderElection: false,
      logger: fleetLogger(lines),
      reconcile: async (req, ctx) => {
        lines.push({ kind: 'start', cluster: req.cluster ?? '', name: req.name });
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, 3 + Math.floor(Math.random() * 10));
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            resolve();
          });
        });
      },
    });
    const stop = new AbortController();
    const done = ctl.start(stop.signal);

    // Load: ConfigMaps churn on every server for the whole test.
    let churning = true;
    let n = 0;
    const churn = (async () => {
      while (churning) {
        n++;
        for (const s of servers) {
          const name = `cm-${n % 20}`;
          const existing = s.get('v1', 'ConfigMap', name, 'default');
          if (existing === undefined) s.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { n: String(n) } } as KubeObject);
          else s.update({ ...existing, data: { n: String(n) } } as KubeObject);
        }
        await sleep(5);
      }
    })();

    const startsOf = (cluster: string, from = 0): number => lines.slice(from).filter((l) => l.kind === 'start' && l.cluster === cluster).length;
    for (const name of ['alpha', 'beta', 'gamma']) alpha.create(secretOf(name, (byName[name] as ApiServer).kubeconfigYaml));
    alpha.create(secretOf('broken', 'this: [is not a kubeconfig'));
    alpha.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unlabelled', namespace: 'fleet' }, data: { kubeconfig: Buffer.from(beta.kubeconfigYaml).toString('base64') } } as KubeObject);
    await until(() => startsOf('alpha') > 5 && startsOf('beta') > 5 && startsOf('gamma') > 5, 'every cluster served');
    expect(skipped.map((e) => e.secret)).toEqual(['broken']);
    expect(skipped[0]?.message).toContain('fleet/broken');
    expect(lines.some((l) => l.kind === 'start' && l.cluster === 'unlabelled')).toBe(false);

    // beta leaves (its Secret is deleted) while its objects keep churning.
    alpha.delete('v1', 'Secret', 'beta', 'fleet');
    await until(() => lines.some((l) => l.kind === 'let go' && l.cluster === 'beta'), 'beta let go');
    const leftAt = lines.findIndex((l) => l.kind === 'let go' && l.cluster === 'beta');
    const alphaBefore = startsOf('alpha');
    await until(() => startsOf('alpha') > alphaBefore + 10, 'alpha still served');
    expect(startsOf('beta', leftAt)).toBe(0);
    await until(() => beta.openWatches() === 0, 'beta watches closed');

    // beta rejoins and is served again.
    alpha.create(secretOf('beta', beta.kubeconfigYaml));
    await until(() => startsOf('beta', leftAt) > 5, 'beta served again');

    // gamma's kubeconfig changes (another context name): the old engagement is replaced.
    const changed = gamma.kubeconfigYaml.replace(/current-context: .*/, 'current-context: renamed').replace(/name: ([^\n]*)\n(\s*)context:/, 'name: renamed\n$2context:');
    const current = alpha.get('v1', 'Secret', 'gamma', 'fleet') as KubeObject;
    alpha.update({ ...current, data: { kubeconfig: Buffer.from(changed).toString('base64') } } as KubeObject);
    await until(() => lines.some((l) => l.kind === 'let go' && l.cluster === 'gamma' && l.why === 'replaced'), 'gamma replaced');
    const replacedAt = lines.findIndex((l) => l.kind === 'let go' && l.cluster === 'gamma');
    await until(() => startsOf('gamma', replacedAt) > 5, 'gamma served after its change');

    // beta leaves again, for good this time: nothing of it starts after, however long we wait.
    alpha.delete('v1', 'Secret', 'beta', 'fleet');
    await until(() => lines.filter((l) => l.kind === 'let go' && l.cluster === 'beta').length === 2, 'beta let go again');
    const leftAgainAt = lines.map((l, i) => (l.kind === 'let go' && l.cluster === 'beta' ? i : -1)).filter((i) => i >= 0)[1] as number;
    await sleep(300);
    expect(startsOf('beta', leftAgainAt)).toBe(0);

    churning = false;
    await churn;
    stop.abort();
    await done;
    // Every informer stopped with the controller: the member clusters' and the Secret informer.
    await until(() => alpha.openWatches() + beta.openWatches() + gamma.openWatches() === 0, 'every watch closed');
  }, 60_000);
});
