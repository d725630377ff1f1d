/**
 * Wires the example together: shared informers, the ReplicaSet controller (rxkube-controller-manager's,
 * `replicaSetController` from `@rxkube/controller-manager`), the trace printer (fed by the controller's `onSync`
 * and by the informers) and (against the embedded API server) the simulated kubelet, all run by
 * one manager; then the scripted scenario, if asked for.
 *
 * The manager owns the cross-cutting parts: the controller gets its logger, metrics registry,
 * client and event recorder from it, and `mgr.rbac()` derives the RBAC rules from what it runs
 * (the informers, the controller's declared `permissions`, Events, the Lease).
 */
import { ignoreElements, merge, tap } from 'rxjs';
import { InformerFactory, manager, resources, type K8s, type KubeClient, type Manager, type ManagerOptions, type SharedInformer } from 'rxkube';
import { replicaSetController, type ReplicaSetSyncReport } from '@rxkube/controller-manager';
import { simulatedKubelet } from './kubelet.js';
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
  /** The trace of events and syncs (default `console.log`); `false` for none. */
  readonly write?: ((line: string) => void) | false;
  readonly color?: boolean;
  readonly signal?: AbortSignal;
  /** Controller name (logs, metrics, field manager); default `replicaset`. */
  readonly controllerName?: string;
  /** The manager's other options: probes and metrics ports, leader election, logger, sync timeout. */
  readonly manager?: Omit<ManagerOptions, 'client' | 'kubeConfig'>;
  /** Receives the manager once everything is added (before it starts). */
  readonly onManager?: (mgr: Manager) => void;
}

export interface ExampleResult {
  readonly steps: StepResult[];
  readonly syncs: ReplicaSetSyncReport[];
}

/** The example's manager with everything added, not started. */
export interface ReplicaSetManager {
  readonly mgr: Manager;
  readonly informers: InformerFactory;
  readonly pods: SharedInformer<K8s.Pod>;
  readonly replicaSets: SharedInformer<K8s.ReplicaSet>;
  readonly syncs: ReplicaSetSyncReport[];
  readonly trace: Trace | undefined;
}

/** Builds the manager, the informers, the controller, the trace and (if asked) the simulated kubelet. */
export function replicaSetManager(options: ExampleOptions): ReplicaSetManager {
  const namespace = options.namespace ?? 'default';
  const trace =
    options.write === false
      ? undefined
      : new Trace({ ...(options.write === undefined ? {} : { write: options.write }), ...(options.color === undefined ? {} : { color: options.color }) });
  const informers = new InformerFactory(options.client, { namespace });
  const syncs: ReplicaSetSyncReport[] = [];
  const mgr = manager({ gracefulShutdownTimeoutMs: 5_000, ...options.manager, client: options.client });
  const ctrl = replicaSetController({
    informers,
    client: options.client,
    ...(options.controllerName === undefined ? {} : { name: options.controllerName }),
    ...(options.burstReplicas === undefined ? {} : { burstReplicas: options.burstReplicas }),
    onSync: (report) => {
      syncs.push(report);
      trace?.sync(report);
    },
  });
  const pods = informers.pods();
  const replicaSets = informers.replicaSets();

  mgr.add(informers.runnable());
  mgr.add(ctrl); // takes the manager's logger, metrics registry and event recorder
  if (trace !== undefined) {
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
  }
  if (options.simulateKubelet === true) {
    mgr.add({
      name: 'simulated-kubelet',
      needLeaderElection: false,
      start: () => simulatedKubelet({ pods, client: options.client }),
      permissions: () => [{ resource: resources.pods, subresource: 'status', verbs: ['patch'] }],
    });
  }
  options.onManager?.(mgr);
  return { mgr, informers, pods, replicaSets, syncs, trace };
}

/** Runs the example: until `signal` aborts, or through the scenario. Rejects when the manager fails. */
export async function runReplicaSetExample(options: ExampleOptions): Promise<ExampleResult> {
  const namespace = options.namespace ?? 'default';
  const { mgr, informers, pods, replicaSets, syncs, trace } = replicaSetManager(options);
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
        trace: trace ?? new Trace({ write: () => undefined }),
        ...(options.stepTimeoutMs === undefined ? {} : { stepTimeoutMs: options.stepTimeoutMs }),
      });
      stop.abort(); // the manager writes pending Events before it stops
    } else {
      await running; // until `signal` aborts (or a runnable fails)
    }
  } finally {
    stop.abort();
    await running;
  }
  return { steps, syncs };
}
