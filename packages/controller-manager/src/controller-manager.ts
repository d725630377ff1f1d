/**
 * rxkube-controller-manager: kube-controller-manager's lifecycle controllers written with rxkube's
 * public API (informer factory, controller builder, manager, leader election), for the embedded
 * API server and for any kube-apiserver that runs no controllers of its own: the garbage
 * collector, the namespace controller, the Deployment, ReplicaSet and endpoints controllers, and (opt-in) a
 * stand-in scheduler and kubelet with fake nodes.
 */
import { asyncScheduler, debounceTime, distinctUntilChanged, from, map, Observable, of, startWith, switchMap, type SchedulerLike } from 'rxjs';
import { InformerFactory, manager, noopLogger, resources, type KubeClient, type Logger, type Manager, type Runnable } from 'rxkube';
import type { Resource } from './resources.js';
import { deploymentController } from './deployment-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { garbageCollector } from './garbage-collector.js';
import { namespaceController } from './namespace-controller.js';
import { replicaSetController } from './replicaset/replicaset-controller.js';
import { discoverResources } from './resources.js';
import { standInNodes } from './stand-in-nodes.js';

/** The controllers by name (as kube-controller-manager's `--controllers`). */
export type ControllerName = 'garbagecollector' | 'namespace' | 'deployment' | 'replicaset' | 'endpoint';
export const ALL_CONTROLLERS: readonly ControllerName[] = ['garbagecollector', 'namespace', 'deployment', 'replicaset', 'endpoint'];

export interface ControllerManagerOptions {
  readonly client: KubeClient;
  /** Which controllers run; default all. */
  readonly controllers?: readonly ControllerName[];
  /** Run the stand-in scheduler and kubelets with these fake nodes (a number: `node-1` … `node-N`). Off by default. */
  readonly standInNodes?: number | readonly string[];
  /** Elect a leader through a Lease in `kube-system` (several managers, one active). Off by default. */
  readonly leaderElection?: boolean | { readonly namespace?: string; readonly id?: string };
  /** Resources the garbage collector and the namespace controller act on; default: discovered. */
  readonly resources?: readonly Resource[];
  readonly logger?: Logger;
  /** Scheduler of every timer (queues, requeues, the stand-in kubelet). */
  readonly scheduler?: SchedulerLike;
  /** Time a stand-in pod takes to become Ready (ms). */
  readonly podStartupMs?: number;
}

/** A running controller manager. */
export interface RunningControllerManager {
  readonly manager: Manager;
  /** Resolves once every informer cache synced. */
  readonly synced: Promise<boolean>;
  /** Stops the controllers (and waits for them). */
  stop(): Promise<void>;
}

/** Builds the manager with the chosen controllers (discovers resources first when not given). */
export async function controllerManager(options: ControllerManagerOptions): Promise<{ manager: Manager; informers: InformerFactory }> {
  const client = options.client;
  const enabled = new Set(options.controllers ?? ALL_CONTROLLERS);
  const scheduler = options.scheduler;
  const logger = options.logger ?? noopLogger;
  const schedulerOpt = scheduler === undefined ? {} : { scheduler };
  const resources = options.resources ?? (await discoverResources(client)).filter((r) => r.plural !== 'events');
  const informers = new InformerFactory(client, { ...schedulerOpt });
  const le = options.leaderElection;
  const mgr = manager({
    client,
    logger,
    gracefulShutdownTimeoutMs: 5_000,
    ...schedulerOpt,
    ...(le === undefined || le === false ? {} : { leaderElection: { id: (typeof le === 'object' ? le.id : undefined) ?? 'rxkube-controller-manager', namespace: (typeof le === 'object' ? le.namespace : undefined) ?? 'kube-system' } }),
  });
  const common = { client, informers, logger, ...schedulerOpt };
  if (enabled.has('garbagecollector')) {
    mgr.add(options.resources !== undefined ? garbageCollector({ ...common, resources }) : rediscoveringGarbageCollector({ client, logger, informers, ...schedulerOpt }, resources));
  }
  if (enabled.has('namespace')) mgr.add(namespaceController({ ...common, resources: () => resources }));
  if (enabled.has('deployment')) mgr.add(deploymentController(common));
  if (enabled.has('endpoint')) mgr.add(endpointsController(common));
  if (enabled.has('replicaset')) mgr.add(replicaSetController({ ...common, recorder: mgr.getEventRecorder('replicaset-controller') }));
  const nodes = options.standInNodes;
  if (nodes !== undefined && nodes !== 0) {
    const names = typeof nodes === 'number' ? Array.from({ length: nodes }, (_, i) => `node-${i + 1}`) : nodes;
    mgr.add(standInNodes({ ...common, nodes: names, ...(options.podStartupMs === undefined ? {} : { startupMs: options.podStartupMs }) }));
  }
  mgr.add(informers.runnable());
  return { manager: mgr, informers };
}

/**
 * The garbage collector over every discovered resource, rebuilt (new informers, new queue) when
 * the set of CustomResourceDefinitions changes, so custom resources created later are collected too.
 */
function rediscoveringGarbageCollector(
  o: { readonly client: KubeClient; readonly logger: Logger; readonly informers: InformerFactory; readonly scheduler?: SchedulerLike },
  initial: readonly Resource[],
): Runnable {
  const crds = o.informers.for(resources.customResourceDefinitions);
  const schedulerOpt = o.scheduler === undefined ? {} : { scheduler: o.scheduler };
  const crdSet = (): string => crds.store.list().map((c) => `${c.metadata?.name ?? ''}@${c.metadata?.generation ?? 0}`).sort().join(',');
  let first = true;
  const runOnce = (found: readonly Resource[]): Observable<never> =>
    new Observable<never>((subscriber) => {
      const factory = new InformerFactory(o.client, { ...schedulerOpt });
      const gc = garbageCollector({ client: o.client, informers: factory, resources: found, logger: o.logger, ...schedulerOpt });
      const stop = new AbortController();
      factory.start();
      gc.start(stop.signal).catch((err: unknown) => subscriber.error(err));
      return () => {
        stop.abort();
        factory.stop();
      };
    });
  return {
    name: 'garbagecollector',
    needLeaderElection: true,
    start: () =>
      crds.listen({ name: 'garbagecollector-crds' }).events$.pipe(
        map(() => crdSet()),
        startWith(''),
        debounceTime(500, o.scheduler ?? asyncScheduler),
        distinctUntilChanged(),
        switchMap(() => {
          const found = first ? of(initial) : from(discoverResources(o.client)).pipe(map((rs) => rs.filter((r) => r.plural !== 'events')));
          first = false;
          return found.pipe(switchMap(runOnce));
        }),
      ),
  };
}

/** Builds and starts the controller manager; `stop()` ends it. */
export async function startControllerManager(options: ControllerManagerOptions): Promise<RunningControllerManager> {
  const { manager: mgr, informers } = await controllerManager(options);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  running.catch(() => undefined);
  return {
    manager: mgr,
    synced: informers.waitForCacheSync(60_000),
    async stop() {
      stop.abort();
      await running.catch(() => undefined);
    },
  };
}
