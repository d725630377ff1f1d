/**
 * Keeps the demo cluster moving: Deployments that roll out and scale (the embedded
 * controller-manager's Deployment and ReplicaSet controllers do the work, its stand-in nodes bind
 * pods and make them Running), pods deleted and recreated elsewhere, batch pods that finish.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { K8s, KubeClient } from 'rxkube';

/** A Deployment of `replicas` pods of `image`, labelled `app: name`. */
export function deployment(name: string, replicas: number, image: string): K8s.Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
    },
  };
}

/** A pod bound to `node` that the scenario later marks Succeeded. */
export function batchPod(name: string, node: string): K8s.Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'batch' } },
    spec: { nodeName: node, restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox' }] },
  };
}

/** Options of {@link runScenario}. */
export interface ScenarioOptions {
  /** Node names pods are put on (the stand-in nodes). */
  readonly nodes: readonly string[];
  /** Pause between steps (ms). Default 2500. */
  readonly stepMs?: number;
  /** Told what each step does. */
  readonly say?: (line: string) => void;
  /** Stops the scenario (it resolves after the step under way). */
  readonly signal?: AbortSignal;
}

/** Creates `web` and `api` in `default`, then changes something every `stepMs` until `signal` aborts. */
export async function runScenario(client: KubeClient, options: ScenarioOptions): Promise<void> {
  const say = options.say ?? (() => undefined);
  const stepMs = options.stepMs ?? 2500;
  const deployments = client.objects<K8s.Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default');
  const pods = client.objects<K8s.Pod>({ apiVersion: 'v1', kind: 'Pod' }, 'default');
  const stopped = (): boolean => options.signal?.aborted === true;
  const pause = async (): Promise<void> => {
    await sleep(stepMs, undefined, options.signal === undefined ? {} : { signal: options.signal }).catch(() => undefined);
  };

  say('web: 3 replicas of web:1; api: 2 replicas of api:1');
  await deployments.create(deployment('web', 3, 'web:1'));
  await deployments.create(deployment('api', 2, 'api:1'));
  let webVersion = 1;
  let apiReplicas = 2;
  let batch = 0;
  for (let step = 0; !stopped(); step++) {
    await pause();
    if (stopped()) break;
    try {
      switch (step % 4) {
        case 0: {
          webVersion += 1;
          say(`web rolls out web:${webVersion}`);
          await deployments.patch('web', { spec: { template: { spec: { containers: [{ name: 'main', image: `web:${webVersion}` }] } } } }, 'strategic');
          break;
        }
        case 1: {
          apiReplicas = apiReplicas === 2 ? 5 : 2;
          say(`api scales to ${apiReplicas}`);
          await deployments.patch('api', { spec: { replicas: apiReplicas } });
          break;
        }
        case 2: {
          batch += 1;
          const node = options.nodes[batch % options.nodes.length] ?? '';
          say(`batch-${batch} starts on ${node}${batch > 1 ? `; batch-${batch - 1} finishes` : ''}`);
          await pods.create(batchPod(`batch-${batch}`, node));
          if (batch > 1) await pods.patchStatus(`batch-${batch - 1}`, { status: { phase: 'Succeeded' } }).catch(() => undefined);
          if (batch > 3) await pods.delete(`batch-${batch - 3}`, { gracePeriodSeconds: 0, ignoreNotFound: true });
          break;
        }
        default: {
          const victim = (await pods.list({ labelSelector: 'app=api' })).items[0];
          if (victim?.metadata?.name !== undefined) {
            say(`${victim.metadata.name} is deleted (its ReplicaSet puts a new pod on a node)`);
            await pods.delete(victim.metadata.name, { ignoreNotFound: true });
          }
        }
      }
    } catch (e) {
      say(`step failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
