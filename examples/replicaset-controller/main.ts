/**
 * The ReplicaSet controller example (`npm run example`).
 *
 * Without a cluster it starts the embedded API server, runs the ReplicaSet controller
 * (rxkube-controller-manager's, from `@rxkube/controller-manager`) under a manager next to a simulated
 * kubelet, plays a scripted scenario and exits. With `--kubeconfig PATH` (or
 * `KUBECONFIG`), or in a pod (in-cluster service account), it runs against that cluster until
 * SIGTERM / Ctrl-C; `--demo` also plays the scenario there.
 *
 *   npm run example
 *   npm run example -- --kubeconfig ~/.kube/config --namespace rxkube-demo [--demo] [--simulate-kubelet]
 *   npm run example -- --print-rbac --namespace rxkube-demo --leader-elect   # the RBAC manifest it needs
 *
 * Against a cluster the manager serves `/metrics` on `--metrics-port` (default 8080) and
 * `/healthz`, `/readyz` on `--health-port` (default 8081); `--leader-elect` campaigns for a Lease
 * (in `--leader-election-namespace`, default the namespace); `--cache-sync-timeout SECONDS`
 * (default 120) bounds how long it waits for its caches before it exits with an error naming the
 * server and the cause. `--simulate-kubelet` marks pods Running and Ready on a cluster without
 * nodes (a bare kube-apiserver); `--burst N` sets burstReplicas (default 3 on the embedded server,
 * else 500). Logs: `RXKUBE_LOG=debug|info|warn|error[,json|text]`.
 *
 * On a real cluster kube-controller-manager's own ReplicaSet controller manages the same objects:
 * use a cluster without it (a bare kube-apiserver, or `--controllers=*,-replicaset`), or the two
 * controllers will both act.
 */
import { parseArgs } from 'node:util';
import { KubeClient, setupSignalHandler, type ManagerOptions } from 'rxkube';
import { runReplicaSetExample } from './demo.js';
import { leaderElectionOptions, rbacYaml } from './rbac.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'in-cluster': { type: 'boolean', default: false },
    namespace: { type: 'string', default: process.env['POD_NAMESPACE'] ?? 'default' },
    demo: { type: 'boolean', default: false },
    burst: { type: 'string' },
    'simulate-kubelet': { type: 'boolean', default: false },
    'metrics-port': { type: 'string', default: '8080' },
    'health-port': { type: 'string', default: '8081' },
    'leader-elect': { type: 'boolean', default: false },
    'leader-election-namespace': { type: 'string' },
    'cache-sync-timeout': { type: 'string' },
    'print-rbac': { type: 'boolean', default: false },
    'service-account': { type: 'string', default: 'rxkube-replicaset-controller' },
    'service-account-namespace': { type: 'string' },
  },
});

const kubeconfig = values.kubeconfig ?? process.env['KUBECONFIG'];
const inCluster = values['in-cluster'] || ((kubeconfig === undefined || kubeconfig === '') && !!process.env['KUBERNETES_SERVICE_HOST']);
const burstReplicas = values.burst === undefined ? undefined : Number(values.burst);
const namespace = values.namespace;

/** The manager's options against a cluster: probes, metrics, leader election, sync timeout. */
function clusterManagerOptions(): Omit<ManagerOptions, 'client' | 'kubeConfig'> {
  const syncSeconds = values['cache-sync-timeout'] === undefined ? undefined : Number(values['cache-sync-timeout']);
  return {
    metrics: { port: Number(values['metrics-port']) },
    health: { port: Number(values['health-port']) },
    gracefulShutdownTimeoutMs: 20_000,
    ...(syncSeconds === undefined ? {} : { cacheSyncTimeoutMs: syncSeconds * 1000 }),
    ...leaderElectionOptions({
      leaderElect: values['leader-elect'],
      namespace,
      ...(values['leader-election-namespace'] === undefined ? {} : { leaderElectionNamespace: values['leader-election-namespace'] }),
    }),
  };
}

async function main(): Promise<void> {
  if (values['print-rbac']) {
    process.stdout.write(
      await rbacYaml({
        namespace,
        leaderElect: values['leader-elect'],
        simulateKubelet: values['simulate-kubelet'],
        serviceAccount: values['service-account'],
        ...(values['leader-election-namespace'] === undefined ? {} : { leaderElectionNamespace: values['leader-election-namespace'] }),
        ...(values['service-account-namespace'] === undefined ? {} : { serviceAccountNamespace: values['service-account-namespace'] }),
      }),
    );
    return;
  }

  if (!inCluster && (kubeconfig === undefined || kubeconfig === '')) {
    console.log('rxkube ReplicaSet controller · embedded API server (no cluster needed) · burstReplicas 3');
    // The embedded server is loaded only here: on a cluster the controller does not carry it.
    const { startApiServer } = await import('@rxkube/testkit');
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    try {
      const { steps, syncs } = await runReplicaSetExample({
        client,
        scenario: true,
        simulateKubelet: true,
        burstReplicas: burstReplicas ?? 3,
        namespace,
        manager: { logLevel: 'warn' }, // the trace tells the story here
      });
      const errors = syncs.filter((s) => s.kind === 'error').length;
      console.log(`\ndone: ${steps.length} steps converged, ${syncs.length} syncs (${errors} retried after an error)`);
    } finally {
      client.close();
      await server.close();
    }
    return;
  }

  // In a pod: the service account. Else KUBECONFIG may list several files (merged), or --kubeconfig one.
  const client = inCluster ? KubeClient.inCluster() : values.kubeconfig === undefined ? KubeClient.fromDefault() : KubeClient.fromFile(values.kubeconfig);
  const where = inCluster ? 'in-cluster' : kubeconfig;
  console.log(`rxkube ReplicaSet controller · ${where} · ${client.connection.server.origin} · namespace ${namespace}${values.demo ? ' · scenario' : ''}`);
  const signals = setupSignalHandler();
  try {
    await runReplicaSetExample({
      client,
      scenario: values.demo,
      simulateKubelet: values['simulate-kubelet'],
      namespace,
      signal: signals.signal,
      write: values.demo ? undefined : false, // in a cluster the manager's logs are the output
      manager: clusterManagerOptions(),
      ...(burstReplicas === undefined ? {} : { burstReplicas }),
    });
  } finally {
    signals.dispose();
    client.close();
  }
}

main().catch((err: unknown) => {
  // One line a person (or `kubectl logs`) can act on, then a non-zero exit.
  console.error(`replicaset-controller: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  process.exitCode = 1;
});
