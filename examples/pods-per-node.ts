/**
 * Pods per node and phase, live: the whole table recomputed from two immutable cache snapshots
 * (`state$` of the nodes and pods informers) whenever either changes.
 *
 *   npx tsx --conditions=source examples/pods-per-node.ts                 # embedded API server + a small scenario
 *   npx tsx --conditions=source examples/pods-per-node.ts --kubeconfig ~/.kube/config   # a real cluster, until Ctrl-C
 *
 * `combineLatest([nodes.state$, pods.state$])` emits only once both informers have their initial
 * lists (no first table with every pod orphaned), then after each batch of changes; a snapshot is
 * a `ReadonlyMap` shared structurally with the previous one, so nothing copies the caches.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { auditTime, combineLatest, map, type Observable } from 'rxjs';
import { InformerFactory, KubeClient, setupSignalHandler, type K8s, type SharedInformer } from 'rxkube';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

type Pod = K8s.Pod;
type Node = K8s.Node;

const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
/** Pod counts by phase, per node name. */
export type Table = ReadonlyMap<string, Readonly<Record<string, number>>>;

const NO_NODE = '(no node)';

/** The live table: a new one after every batch of changes (`settleMs` groups bursts of events). */
export function podsPerNode(nodes: SharedInformer<Node>, pods: SharedInformer<Pod>, settleMs = 50): Observable<Table> {
  return combineLatest([nodes.state$, pods.state$]).pipe(
    auditTime(settleMs),
    map(([nodeMap, podMap]) => tableOf([...nodeMap.values()], [...podMap.values()])),
  );
}

/** Counts pods by phase on each node; pods on no node, or on a node that is gone, under `(no node)`. */
export function tableOf(nodes: readonly Node[], pods: readonly Pod[]): Table {
  const byNode = new Map<string, Pod[]>(nodes.map((n) => [n.metadata?.name ?? '', []]));
  const homeless: Pod[] = [];
  for (const p of pods) (byNode.get(p.spec?.nodeName || NO_NODE) ?? homeless).push(p);
  const table = new Map([...byNode].map(([node, ps]) => [node, countPhases(ps)]));
  if (homeless.length > 0) table.set(NO_NODE, countPhases(homeless));
  return table;
}

function countPhases(pods: readonly Pod[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(PHASES.map((p) => [p, 0]));
  for (const p of pods) {
    const phase = p.status?.phase ?? 'Pending';
    counts[phase] = (counts[phase] ?? 0) + 1;
  }
  return counts;
}

/** The table as text, nodes sorted by name. */
export function renderTable(table: Table): string {
  const header = ['NODE', ...PHASES.map((p) => p.toUpperCase()), 'TOTAL'];
  const rows = [...table.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([node, c]) => [node, ...PHASES.map((p) => String(c[p] ?? 0)), String(PHASES.reduce((n, p) => n + (c[p] ?? 0), 0))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** A few nodes and pods that come, run, finish, move and lose their node. */
export async function scenario(client: KubeClient, say: (line: string) => void, settled: () => Promise<void>): Promise<void> {
  const nodes = client.objects<Node>({ apiVersion: 'v1', kind: 'Node' });
  const pods = client.objects<Pod>({ apiVersion: 'v1', kind: 'Pod' }, 'default');
  const pod = (name: string, nodeName: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] } });
  const phase = (name: string, p: string) => pods.patchStatus(name, { status: { phase: p } });

  say('── three nodes, seven pods scheduled on them (Pending), one unscheduled');
  await Promise.all(['node-a', 'node-b', 'node-c'].map((n) => nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: n } })));
  const placement: [string, string][] = [['web-1', 'node-a'], ['web-2', 'node-b'], ['web-3', 'node-c'], ['db-1', 'node-a'], ['job-1', 'node-b'], ['job-2', 'node-c'], ['cache-1', 'node-a'], ['queued-1', '']];
  await Promise.all(placement.map(([name, node]) => pods.create(pod(name, node))));
  await settled();
  say('── the kubelets start them; the jobs finish (one fails)');
  await Promise.all(['web-1', 'web-2', 'web-3', 'db-1', 'cache-1'].map((n) => phase(n, 'Running')));
  await phase('job-1', 'Succeeded');
  await phase('job-2', 'Failed');
  await settled();
  say('── cache-1 is rescheduled from node-a to node-c');
  // Grace period 0: no kubelet runs here to confirm a graceful deletion of a pod bound to a node.
  await pods.delete('cache-1', { gracePeriodSeconds: 0 });
  await pods.create(pod('cache-1', 'node-c'));
  await settled();
  say('── node-b is removed (its pods now have no node)');
  await nodes.delete('node-b');
  await settled();
}

/** The table computed from fresh lists (no cache), to check the live one against. */
export async function serverTable(client: KubeClient): Promise<Table> {
  const nodes = (await client.objects<Node>({ apiVersion: 'v1', kind: 'Node' }).list()).items;
  const pods = (await client.objects<Pod>({ apiVersion: 'v1', kind: 'Pod' }).list()).items;
  return tableOf(nodes, pods);
}

/** Runs the live table on `client` until `signal` aborts; without a client, against the embedded API server with the scenario. */
export async function runPodsPerNode(options: { client?: KubeClient; write?: (line: string) => void; signal?: AbortSignal }): Promise<Table> {
  const write = options.write ?? ((line: string) => console.log(line));
  const server = options.client === undefined ? await startApiServer() : undefined;
  const client = options.client ?? KubeClient.fromKubeConfig((server as ApiServer).kubeConfig);
  const informers = new InformerFactory(client);
  const nodes = informers.nodes();
  const pods = informers.pods({ namespace: null });
  let last: Table = new Map();
  const sub = podsPerNode(nodes, pods).subscribe((table) => {
    last = table;
    write(`${renderTable(table)}\n`);
  });
  informers.start();
  try {
    await informers.waitForCacheSync(30_000);
    if (server !== undefined) {
      // Between steps, wait until the live table shows what the API server holds.
      const settled = async (): Promise<void> => {
        const want = renderTable(await serverTable(client));
        for (let i = 0; renderTable(last) !== want; i++) {
          if (i > 400) throw new Error(`the table did not catch up with the API server:\n${want}`);
          await sleep(25);
        }
      };
      await scenario(client, write, settled);
    } else if (options.signal !== undefined && !options.signal.aborted) {
      const signal = options.signal;
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    }
    return last;
  } finally {
    sub.unsubscribe();
    informers.stop();
    if (server !== undefined) {
      client.close();
      await server.close();
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
  const useCluster = values.kubeconfig !== undefined || (process.env['KUBECONFIG'] ?? '') !== '';
  // KUBECONFIG may list several files: client-node's default loading merges them.
  const client = !useCluster ? undefined : values.kubeconfig === undefined ? KubeClient.fromDefault() : KubeClient.fromFile(values.kubeconfig);
  const signals = setupSignalHandler();
  await runPodsPerNode({ ...(client === undefined ? {} : { client }), signal: signals.signal });
  signals.dispose();
  client?.close();
}
