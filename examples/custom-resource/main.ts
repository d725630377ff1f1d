/**
 * The custom-resource example: a CRD, a shared informer for it with a custom index (`team`), and
 * a controller with a finalizer, against the embedded API server.
 *
 *   npx tsx --conditions=source examples/custom-resource/main.ts
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { InformerFactory, KubeClient, manager } from 'rxkube';
import { startApiServer } from '@rxkube/testkit';
import { BY_TEAM, CRDS, DATABASES, database, databaseCrd } from './database.js';
import { databaseController } from './database-controller.js';
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
  const provisioner = new Provisioner();
  const stop = new AbortController();
  try {
    write('── install the CRD (the embedded server serves the new resource at once)');
    await client.objects(CRDS).create(databaseCrd);

    const informers = new InformerFactory(client, { namespace: 'default' });
    const ctrl = databaseController({ informers, client, provisioner, quotaPerTeam: 2, onReconcile: (l) => write(`   ${l}`) });
    const store = informers.for(DATABASES).store; // the same shared informer, with the team index
    const mgr = manager({ client, logLevel: 'warn' }); // the demo prints its own story
    mgr.add(informers.runnable());
    mgr.add(ctrl);
    const running = mgr.start(stop.signal);

    const dbs = client.objects(DATABASES, 'default');
    const phases = (): string[] =>
      store
        .list()
        .map((d) => `${d.metadata?.name ?? ''}: ${d.status?.phase ?? '-'}`)
        .sort();
    const until = async (what: string, ok: () => boolean): Promise<void> => {
      for (let i = 0; !ok(); i++) {
        if (i > 400) throw new Error(`timed out waiting for ${what}: ${phases().join(', ')}`);
        await sleep(25);
      }
    };
    const phaseOf = (name: string): string | undefined => store.get(`default/${name}`)?.status?.phase;

    write('── team payments asks for 3 databases (quota: 2 per team), team search for 1');
    for (const [name, team] of [['orders', 'payments'], ['ledger', 'payments'], ['refunds', 'payments'], ['index', 'search']] as const) {
      await dbs.create(database(name, team));
      await sleep(5); // distinct creation order
    }
    await until('4 databases reconciled', () => ['orders', 'ledger', 'index'].every((n) => phaseOf(n) === 'Ready') && phaseOf('refunds') === 'OverQuota');
    write(`   team index: payments → ${store.byIndex(BY_TEAM, 'payments').map((d) => d.metadata?.name).sort().join(', ')}; search → ${store.byIndex(BY_TEAM, 'search').map((d) => d.metadata?.name).join(', ')}`);
    write(`   provisioned: ${provisioner.list().join(', ')}`);

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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCustomResourceExample();
  console.log(`\ndone: ${result.databases.join(', ')}`);
}
