/**
 * Wires the example together: shared informers, the ReplicaSet controller, the trace printer and
 * (against the embedded API server) the simulated kubelet, all run by one manager; then the
 * scripted scenario, if asked for.
 */
import { ignoreElements, merge, tap } from 'rxjs';
import { InformerFactory, manager, type KubeClient } from 'rxkube';
import { simulatedKubelet } from './kubelet.js';
import { replicaSetController, type SyncReport } from './replicaset-controller.js';
import { runScenario, type StepResult } from './scenario.js';
import { Trace } from './trace.js';

export interface ExampleOptions {
  readonly client: KubeClient;
  readonly namespace?: string;
  /** Run the scripted scenario, then stop; without it, run until `signal` aborts. */
  readonly scenario?: boolean;
  /** Mark pods Running and Ready (no kubelet runs next to the embedded API server). */
  readonly simulateKubelet?: boolean;
  readonly burstReplicas?: number;
  readonly stepTimeoutMs?: number;
  readonly write?: (line: string) => void;
  readonly color?: boolean;
  readonly signal?: AbortSignal;
  /** Controller name (unique per process); default `replicaset`. */
  readonly controllerName?: string;
}

export interface ExampleResult {
  readonly steps: StepResult[];
  readonly syncs: SyncReport[];
}

export async function runReplicaSetExample(options: ExampleOptions): Promise<ExampleResult> {
  const namespace = options.namespace ?? 'default';
  const trace = new Trace({ ...(options.write === undefined ? {} : { write: options.write }), ...(options.color === undefined ? {} : { color: options.color }) });
  const informers = new InformerFactory(options.client, { namespace });
  const syncs: SyncReport[] = [];
  const mgr = manager({ client: options.client, gracefulShutdownTimeoutMs: 5_000 });
  const recorder = mgr.getEventRecorder('replicaset-controller'); // SuccessfulCreate / SuccessfulDelete Events
  const ctrl = replicaSetController({
    recorder,
    informers,
    client: options.client,
    ...(options.controllerName === undefined ? {} : { name: options.controllerName }),
    ...(options.burstReplicas === undefined ? {} : { burstReplicas: options.burstReplicas }),
    onSync: (report) => {
      syncs.push(report);
      trace.sync(report);
    },
  });
  const pods = informers.pods();
  const replicaSets = informers.replicaSets();

  mgr.add(informers.runnable());
  mgr.add(ctrl);
  // The trace is one more consumer of the same shared informers (no extra list or watch).
  mgr.add({
    name: 'trace',
    needLeaderElection: false,
    start: () =>
      merge(
        pods.listen({ name: 'trace' }).events$.pipe(tap((e) => trace.pod(e))),
        replicaSets.listen({ name: 'trace' }).events$.pipe(tap((e) => trace.replicaSet(e))),
      ).pipe(ignoreElements()),
  });
  if (options.simulateKubelet === true) {
    mgr.add({ name: 'simulated-kubelet', needLeaderElection: false, start: () => simulatedKubelet({ pods, client: options.client }) });
  }

  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const running = mgr.start(stop.signal);
  let steps: StepResult[] = [];
  try {
    if (options.scenario === true) {
      await Promise.race([informers.waitForCacheSync(30_000), running]);
      steps = await runScenario({
        client: options.client,
        namespace,
        replicaSets: replicaSets.store,
        pods: pods.store,
        trace,
        ...(options.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: options.stepTimeoutMs }),
      });
      await recorder.flush(); // the manager drops unwritten Events when it stops
      stop.abort();
    } else {
      await running; // until `signal` aborts (or a runnable fails)
    }
  } finally {
    stop.abort();
    await running;
  }
  return { steps, syncs };
}
