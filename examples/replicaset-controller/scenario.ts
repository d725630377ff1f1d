/**
 * The scripted scenario of the example: create a ReplicaSet, scale it up and down, and disturb it
 * behind the controller's back (delete pods, add an orphan, relabel a pod), waiting after each
 * step until the ReplicaSet reports the wanted number of available pods again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isNotFound, ownerRefs, resources, type K8s, type KubeClient, type Store } from 'rxkube';
import type { Trace } from './trace.js';

type Pod = K8s.Pod;
type ReplicaSet = K8s.ReplicaSet;
/** Counts toward replicas: not terminating and not finished (as the controller counts). */
const isActive = (p: Pod): boolean => p.metadata?.deletionTimestamp === undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

export interface ScenarioOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly replicaSets: Store<ReplicaSet>;
  readonly pods: Store<Pod>;
  readonly trace: Trace;
  /** How long one step may take to converge (ms); default 30 000. */
  readonly stepTimeoutMs?: number;
  /** Name of the ReplicaSet; default `web`. */
  readonly name?: string;
}

/** What each step waited for, and how long it took (ms). */
export interface StepResult {
  readonly step: string;
  readonly want: number;
  readonly ms: number;
}

export async function runScenario(o: ScenarioOptions): Promise<StepResult[]> {
  const name = o.name ?? 'web';
  const labels = { app: name };
  const replicaSets = o.client.objects(resources.replicaSets, o.namespace);
  const pods = o.client.objects(resources.pods, o.namespace);
  const results: StepResult[] = [];
  const owned = (): Pod[] =>
    o.pods.list().filter((p) => p.metadata?.namespace === o.namespace && ownerRefs.controllerOf(p)?.name === name && isActive(p));

  /** Runs `act`, waits until the caches show what it did (the predicate it returns), then until converged. */
  const step = async (title: string, want: number, act: () => Promise<() => boolean | Promise<boolean>>): Promise<void> => {
    o.trace.step(title);
    const started = Date.now();
    const seen = await act();
    await until(seen, `the caches to show "${title}"`);
    await until(() => converged(want), `ReplicaSet ${name} to converge to ${want} available`);
    const ms = Date.now() - started;
    o.trace.step(`converged: ${want} available (${ms} ms)`);
    results.push({ step: title, want, ms });
  };

  const timeoutMs = o.stepTimeoutMs ?? 30_000;
  const until = async (condition: () => boolean | Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(cached()?.status)}`);
      await sleep(25);
    }
  };
  const cached = (): ReplicaSet | undefined => o.replicaSets.get(`${o.namespace}/${name}`);
  const cachedPod = (pod: string): Pod | undefined => o.pods.get(`${o.namespace}/${pod}`);
  const converged = (want: number): boolean => {
    const rs = cached();
    const s = rs?.status;
    return (
      rs !== undefined &&
      s?.observedGeneration === rs.metadata?.generation &&
      s?.replicas === want &&
      s.readyReplicas === want &&
      s.availableReplicas === want &&
      owned().length === want
    );
  };
  /** Seen once the cached ReplicaSet is at least at `generation`. */
  const generationSeen = (rs: ReplicaSet) => (): boolean => (cached()?.metadata?.generation ?? 0) >= (rs.metadata?.generation ?? 1);

  const scale = (replicas: number) => async () => generationSeen(await replicaSets.patch(name, { spec: { replicas } }));
  const podTemplate = { containers: [{ name: 'web', image: 'nginx:1.27' }] };

  await step(`create ReplicaSet ${name} with 3 replicas (minReadySeconds 1)`, 3, async () =>
    generationSeen(
      await replicaSets.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: o.namespace },
        spec: { replicas: 3, minReadySeconds: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podTemplate } },
      }),
    ),
  );
  await step('scale up to 8', 8, scale(8));
  await step('delete 3 pods behind its back', 8, async () => {
    const victims = owned().slice(0, 3).map((p) => p.metadata?.name ?? '');
    await Promise.all(victims.map((v) => pods.delete(v)));
    return () => victims.every((v) => cachedPod(v) === undefined);
  });
  await step('create an orphan pod that matches the selector (adopted, then one pod too many)', 8, async () => {
    const stray = `${name}-stray`;
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: stray, namespace: o.namespace, labels }, spec: podTemplate });
    // The controller has reacted once the stray is adopted or already deleted again (ask the server:
    // both can happen between two looks at the cache).
    return async () => {
      const now = await pods.get(stray).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      return now === undefined || ownerRefs.controllerOf(now) !== undefined;
    };
  });
  const relabeled = owned()[0]?.metadata?.name ?? '';
  await step(`relabel pod ${relabeled} out of the selector (released and replaced)`, 8, async () => {
    await pods.patch(relabeled, { metadata: { labels: { app: 'debug' } } });
    return () => cachedPod(relabeled)?.metadata?.labels?.['app'] === 'debug' && ownerRefs.controllerOf(cachedPod(relabeled) as Pod) === undefined;
  });
  await step('scale down to 2', 2, scale(2));
  return results;
}
