/**
 * A stand-in for the kubelet, for the embedded API server (which, like a bare kube-apiserver, runs
 * no nodes): every pending pod is marked Running and Ready a moment after it appears, through the
 * pod's `/status` subresource, so `readyReplicas` and `availableReplicas` can move.
 */
import { catchError, EMPTY, from, ignoreElements, mergeMap, timer, type Observable } from 'rxjs';
import { resources, type K8s, type KubeClient, type SharedInformer } from 'rxkube';

type Pod = K8s.Pod;

export interface KubeletOptions {
  readonly pods: SharedInformer<Pod>;
  readonly client: KubeClient;
  /** How long a pod takes to start (ms); default 300. */
  readonly startupMs?: number;
}

/** Runs until unsubscribed; emits nothing. */
export function simulatedKubelet(options: KubeletOptions): Observable<never> {
  const startup = options.startupMs ?? 300;
  return options.pods.listen({ name: 'simulated-kubelet' }).events$.pipe(
    mergeMap((e) => {
      if (e.type !== 'add') return EMPTY;
      const pod = e.object;
      const pending = (pod.status?.phase ?? 'Pending') === 'Pending' && pod.metadata?.deletionTimestamp === undefined;
      if (!pending) return EMPTY;
      const pods = options.client.objects(resources.pods, pod.metadata?.namespace);
      const running = (): { status: Pod['status'] } => ({
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }] },
      });
      return timer(startup).pipe(
        mergeMap(() => from(pods.patchStatus(pod.metadata.name, running()))),
        catchError(() => EMPTY), // deleted meanwhile
      );
    }),
    ignoreElements(),
  );
}
