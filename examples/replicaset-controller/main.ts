/**
 * The ReplicaSet controller example (`npm run example`).
 *
 * Without a kubeconfig it starts the embedded API server, runs the controller under a manager
 * next to a simulated kubelet, plays a scripted scenario and exits. With `--kubeconfig PATH` (or
 * `KUBECONFIG`) it runs against that cluster until Ctrl-C; `--demo` also plays the scenario there.
 *
 *   npm run example
 *   npm run example -- --kubeconfig ~/.kube/config --namespace rxkube-demo [--demo] [--simulate-kubelet]
 *
 * `--simulate-kubelet` marks pods Running and Ready on a cluster without nodes (a bare
 * kube-apiserver); `--burst N` sets burstReplicas (default 3 on the embedded server, else 500).
 *
 * On a real cluster kube-controller-manager's own ReplicaSet controller manages the same objects:
 * use a cluster without it (a bare kube-apiserver, or `--controllers=*,-replicaset`), or the two
 * controllers will both act.
 */
import { parseArgs } from 'node:util';
import { KubeClient, setupSignalHandler } from 'rxkube';
import { startApiServer } from 'rxkube/testing';
import { runReplicaSetExample } from './demo.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string', default: 'default' },
    demo: { type: 'boolean', default: false },
    burst: { type: 'string' },
    'simulate-kubelet': { type: 'boolean', default: false },
  },
});

const kubeconfig = values.kubeconfig ?? process.env['KUBECONFIG'];
const burstReplicas = values.burst === undefined ? undefined : Number(values.burst);

if (kubeconfig === undefined || kubeconfig === '') {
  console.log('rxkube ReplicaSet controller · embedded API server (no cluster needed) · burstReplicas 3');
  const server = await startApiServer();
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  try {
    const { steps, syncs } = await runReplicaSetExample({
      client,
      scenario: true,
      simulateKubelet: true,
      burstReplicas: burstReplicas ?? 3,
      namespace: values.namespace,
    });
    const errors = syncs.filter((s) => s.kind === 'error').length;
    console.log(`\ndone: ${steps.length} steps converged, ${syncs.length} syncs (${errors} retried after an error)`);
  } finally {
    client.close();
    await server.close();
  }
} else {
  console.log(`rxkube ReplicaSet controller · ${kubeconfig} · namespace ${values.namespace}${values.demo ? ' · scenario' : ' · Ctrl-C to stop'}`);
  // KUBECONFIG may list several files: client-node's default loading merges them.
  const client = values.kubeconfig === undefined ? KubeClient.fromDefault() : KubeClient.fromFile(values.kubeconfig);
  const signals = setupSignalHandler();
  try {
    await runReplicaSetExample({
      client,
      scenario: values.demo,
      simulateKubelet: values['simulate-kubelet'],
      namespace: values.namespace,
      signal: signals.signal,
      ...(burstReplicas === undefined ? {} : { burstReplicas }),
    });
  } finally {
    signals.dispose();
    client.close();
  }
}
