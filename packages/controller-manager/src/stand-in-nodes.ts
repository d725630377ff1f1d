/**
 * A stand-in for a scheduler and kubelets, for API servers without nodes (the embedded one, or a
 * bare kube-apiserver): registers fake Ready nodes, binds every unscheduled pod to one of them
 * (round robin, through the `binding` subresource), marks bound pods Running and Ready a moment
 * later, and confirms graceful deletions of their pods (deletes them again with grace 0), as a
 * kubelet does once the containers stopped. Opt-in: a real cluster has its own.
 */
import { asyncScheduler, catchError, defer, EMPTY, from, ignoreElements, merge, mergeMap, timer, type Observable, type SchedulerLike } from 'rxjs';
import { isConflict, type InformerFactory, type KubeClient, type K8s, type Runnable } from 'rxkube';
import type { Pod } from './replicaset/types.js';
import { NODES, PODS, timestamp } from './resources.js';

export interface StandInNodesOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  /** Node names; default `['node-1']`. */
  readonly nodes?: readonly string[];
  /** Time from bound to Running and Ready (ms); default 200. */
  readonly startupMs?: number;
  /** Time a container takes to stop before the kubelet confirms a deletion (ms); default 100. */
  readonly shutdownMs?: number;
  readonly scheduler?: SchedulerLike;
  /** Wall clock for the timestamps written (ms). */
  readonly now?: () => number;
}

/** A write that failed (the pod went away, or changed) is retried by the pod's next event, if any. */
const ignoreGone = <T>(source: Observable<T>): Observable<T> => source.pipe(catchError(() => EMPTY));

function hashOf(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) >>> 0;
  return h;
}

function nodeObject(name: string): K8s.Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'rxkube.dev/stand-in': 'true' } },
    spec: {},
  };
}

function nodeStatus(now: string): Record<string, unknown> {
  return {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'stand-in kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }],
    capacity: { cpu: '8', memory: '32Gi', pods: '110' },
    allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
    nodeInfo: { kubeletVersion: 'v1.20.0-rxkube-stand-in', containerRuntimeVersion: 'stand-in://1.0', operatingSystem: 'linux', architecture: 'amd64' },
  };
}

/** The pod status a kubelet reports once every container runs and is ready. */
export function runningStatus(pod: Pod, node: string, index: number, now: string): Record<string, unknown> {
  const containers = ((pod.spec?.containers ?? []) as readonly { name?: string; image?: string }[]).map((c) => ({
    name: c.name ?? '', image: c.image ?? '', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } },
  }));
  const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  return {
    phase: 'Running',
    conditions: [cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
    hostIP: `10.0.0.${(index % 250) + 1}`,
    podIP: `10.244.${index % 250}.${(hashOf(pod.metadata?.uid ?? node) % 250) + 2}`,
    startTime: now,
    containerStatuses: containers,
    qosClass: 'BestEffort',
  };
}

/** The runnable: add it to a manager next to the informer factory's runnable. */
export function standInNodes(options: StandInNodesOptions): Runnable {
  const nodes = options.nodes ?? ['node-1'];
  const scheduler = options.scheduler ?? asyncScheduler;
  const now = options.now ?? Date.now;
  const pods = options.informers.pods({ namespace: null });
  const nodeClient = options.client.objects(NODES);
  let next = 0;

  const registerNodes = defer(async () => {
    for (const name of nodes) {
      try {
        await nodeClient.create(nodeObject(name));
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
      await nodeClient.patchStatus(name, { status: nodeStatus(timestamp(now())) });
    }
  });

  const handle = (pod: Pod): Observable<unknown> => {
    const name = pod.metadata?.name ?? '';
    const ns = pod.metadata?.namespace;
    const podClient = options.client.objects<Pod>(PODS, ns);
    const node = pod.spec?.nodeName ?? '';
    const schedulerName = (pod.spec as { schedulerName?: string } | undefined)?.schedulerName;
    if (node === '') {
      if (pod.metadata?.deletionTimestamp !== undefined || (schedulerName !== undefined && schedulerName !== 'default-scheduler')) return EMPTY;
      const target = nodes[next++ % nodes.length] ?? 'node-1';
      const body = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: target } };
      const path = `/api/v1/namespaces/${encodeURIComponent(ns ?? '')}/pods/${encodeURIComponent(name)}/binding`;
      return ignoreGone(from(options.client.connection.request({ method: 'POST', path, body })));
    }
    const index = nodes.indexOf(node);
    if (index < 0) return EMPTY; // not one of ours
    if (pod.metadata?.deletionTimestamp !== undefined) {
      const grace = (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
      return timer(Math.min(grace, options.shutdownMs ?? 100), scheduler).pipe(
        mergeMap(() => ignoreGone(from(podClient.delete(name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid ?? '' } })))),
      );
    }
    if ((pod.status?.phase ?? 'Pending') !== 'Pending') return EMPTY;
    return timer(options.startupMs ?? 200, scheduler).pipe(
      mergeMap(() => ignoreGone(from(podClient.patchStatus(name, { status: runningStatus(pod, node, index, timestamp(now())) })))),
    );
  };

  return {
    name: 'stand-in-nodes',
    needLeaderElection: true,
    start: () =>
      merge(
        registerNodes,
        pods.listen({ name: 'stand-in-nodes' }).events$.pipe(
          mergeMap((e) => (e.type === 'delete' ? EMPTY : handle(e.object as Pod))),
        ),
      ).pipe(ignoreElements()),
  };
}
