/**
 * The custom-resource example: a CRD, a shared informer for it with a custom index (`team`), a
 * controller with a finalizer, and the manager's admission and conversion webhooks, against the
 * embedded API server (which calls the webhooks as kube-apiserver does).
 *
 *   npx tsx --conditions=source examples/custom-resource/main.ts
 *   npx tsx --conditions=source examples/custom-resource/main.ts --print-manifests   # RBAC and webhook registrations
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { KubeClient, resources, type K8s } from 'rxkube';
import { crdConversion, webhookConfigurations, type ConversionWebhook } from 'rxkube/webhook';
import { generateTlsMaterial, startApiServer } from '@rxkube/testkit';
import { BY_TEAM, CRDS, DATABASES, database, databaseCrd } from './database.js';
import { DATABASES_V2 } from './database.generated.js';
import { databaseManager } from './database-manager.js';
import { manifestsYaml } from './manifests.js';
import { Provisioner } from './provisioner.js';

export interface CustomResourceResult {
  /** Instances left in the outside system. */
  readonly instances: string[];
  /** `name: phase` of the Databases left, sorted. */
  readonly databases: string[];
}

export async function runCustomResourceExample(write: (line: string) => void = console.log): Promise<CustomResourceResult> {
  const server = await startApiServer();
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  // A throw-away CA and serving certificate for the webhook server (cert-manager's job in a cluster).
  const tls = await generateTlsMaterial();
  const provisioner = new Provisioner();
  const stop = new AbortController();
  try {
    write('── install the CRD (the embedded server serves the new resource at once)');
    await client.objects(CRDS).create(databaseCrd);

    const { mgr, informers, webhooks } = databaseManager({
      client,
      namespace: 'default',
      provisioner,
      quotaPerTeam: 2,
      onReconcile: (l) => write(`   ${l}`),
      webhookTls: { cert: tls.cert, key: tls.key },
      webhookPort: 0,
      webhookHost: '127.0.0.1',
      manager: { logLevel: 'warn' }, // the demo prints its own story
    });
    const store = informers.for(DATABASES).store; // the same shared informer, with the team index
    const running = mgr.start(stop.signal);

    write("── register the manager's webhooks (derived from mgr.webhooks(), reached at loopback with the CA bundle)");
    const { port } = await webhooks.listening;
    const target = { url: `https://127.0.0.1:${port}` };
    for (const config of webhookConfigurations(mgr.webhooks(), { name: 'rxkube-custom-resource', target, caBundle: tls.ca })) {
      const registration = config as unknown as K8s.MutatingWebhookConfiguration | K8s.ValidatingWebhookConfiguration;
      if (registration.kind === 'MutatingWebhookConfiguration') await client.objects(resources.mutatingWebhookConfigurations).create(registration);
      else await client.objects(resources.validatingWebhookConfigurations).create(registration as K8s.ValidatingWebhookConfiguration);
      write(`   ${registration.kind ?? ''}: ${(registration.webhooks ?? []).map((w) => w.name).join(', ')}`);
    }
    const conversion = mgr.webhooks().find((w): w is ConversionWebhook => w.type === 'conversion');
    if (conversion !== undefined) {
      await client.objects(CRDS).patch(databaseCrd.metadata?.name ?? '', { spec: { conversion: crdConversion(conversion, { target, caBundle: tls.ca }) } });
      write(`   CRD ${databaseCrd.metadata?.name ?? ''}: conversion by webhook (${conversion.path}) between ${conversion.versions.join(' and ')}`);
    }

    const dbs = client.objects(DATABASES, 'default');
    const phases = (): string[] =>
      store
        .list()
        .map((d) => `${d.metadata.name}: ${d.status?.phase ?? '-'}`)
        .sort();
    const until = async (what: string, ok: () => boolean): Promise<void> => {
      for (let i = 0; !ok(); i++) {
        if (i > 400) throw new Error(`timed out waiting for ${what}: ${phases().join(', ')}`);
        await sleep(25);
      }
    };
    const phaseOf = (name: string): string | undefined => store.get(`default/${name}`)?.status?.phase;

    write('── team payments asks for 3 databases (quota: 2 per team); team search for 1 without a size, and for one of 500 Gi');
    for (const [name, team] of [['orders', 'payments'], ['ledger', 'payments'], ['refunds', 'payments']] as const) {
      await dbs.create(database(name, team));
      await sleep(5); // distinct creation order
    }
    // Without a size: the defaulting webhook fills it in (and the team label).
    const index = await dbs.create({ apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'index', namespace: 'default' }, spec: { team: 'search' } });
    write(`   index asked without a size: defaulted by the webhook to sizeGi ${index.spec?.sizeGi ?? '-'}, label ${Object.entries(index.metadata?.labels ?? {}).map(([k, v]) => `${k}=${v}`).join(',')}`);
    try {
      await dbs.create(database('huge', 'search', 500));
      write('   huge (500 Gi) was admitted');
    } catch (err) {
      write(`   huge (500 Gi) refused: ${err instanceof Error ? err.message : String(err)}`);
    }
    await until('4 databases reconciled', () => ['orders', 'ledger', 'index'].every((n) => phaseOf(n) === 'Ready') && phaseOf('refunds') === 'OverQuota');
    write(`   team index: payments → ${store.byIndex(BY_TEAM, 'payments').map((d) => d.metadata.name).sort().join(', ')}; search → ${store.byIndex(BY_TEAM, 'search').map((d) => d.metadata.name).join(', ')}`);
    write(`   provisioned: ${provisioner.list().join(', ')}`);
    const ordersV2 = await client.objects(DATABASES_V2, 'default').get('orders');
    write(`   orders read as ${ordersV2.apiVersion ?? ''} (converted by the webhook): ${JSON.stringify(ordersV2.spec)}`);

    write('── delete ledger: the finalizer holds it until its instance is released; refunds moves into the quota');
    await dbs.delete('ledger');
    await until('ledger gone and refunds Ready', () => !store.has('default/ledger') && phaseOf('refunds') === 'Ready');
    write(`   provisioned: ${provisioner.list().join(', ')}`);

    stop.abort();
    await running;
    return { instances: provisioner.list(), databases: phases() };
  } finally {
    stop.abort();
    client.close();
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--print-manifests')) {
  process.stdout.write(await manifestsYaml());
} else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCustomResourceExample();
  console.log(`\ndone: ${result.databases.join(', ')}`);
}
