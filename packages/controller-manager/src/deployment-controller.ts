/**
 * The Deployment controller of kube-controller-manager (a subset): each Deployment owns one
 * ReplicaSet per pod template (named `{deployment}-{pod-template-hash}`, the hash in the
 * ReplicaSet's labels, selector and template). A template change creates a new ReplicaSet and
 * rolls over to it: `RollingUpdate` scales the new one up within `maxSurge` and the old ones down
 * while `maxUnavailable` allows (old unhealthy replicas first); `Recreate` scales the old ones to
 * zero first. `spec.replicas` changes (`kubectl scale`) resize the current ReplicaSet. The status
 * carries the counts and the `Available` and `Progressing` conditions `kubectl rollout status`
 * reads. Old ReplicaSets beyond `revisionHistoryLimit` are deleted; a paused Deployment only
 * updates its status; a rollback (an old template back) gives the old ReplicaSet the next
 * revision. A rollout that makes no progress (more updated, ready or available replicas, fewer
 * old ones) for `progressDeadlineSeconds` (default 600) gets `Progressing=False` with reason
 * `ProgressDeadlineExceeded`, which `kubectl rollout status` reports as a failure; the controller
 * looks again when the deadline is due (on its scheduler). Not done: proportional scaling during
 * a rollout, adoption of orphan ReplicaSets.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { controller, informerSource, isAlreadyExists, type Controller, type InformerFactory, type KubeClient, type Logger, type ObjectClient } from 'rxkube';
import type { ReplicaSet } from './replicaset/types.js';
import { controllerOf, DEPLOYMENTS, REPLICA_SETS, timestamp, type Deployment, type DeploymentCondition, type DeploymentStatus } from './resources.js';

export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
const BY_OWNER = 'deployment-owner';

export interface DeploymentControllerOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly scheduler?: SchedulerLike;
  /** Wall clock for condition times and progress deadlines (ms). Default: the scheduler's `now()`. */
  readonly now?: () => number;
  readonly name?: string;
}

function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** kube's `ComputeHash`: FNV-32a of the template, written with `rand.SafeEncodeString`. */
export function podTemplateHash(template: unknown): string {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(sortedJson(withoutNullTimestamp(template)), 'utf8')) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...String(h)].map((c) => alphabet[c.charCodeAt(0) % alphabet.length]).join('');
}

/** The template without the hash label, for comparing a ReplicaSet's template with a Deployment's. */
function templateWithoutHash(t: { readonly metadata?: { readonly labels?: Readonly<Record<string, string>> } } | undefined): string {
  const labels = { ...(t?.metadata?.labels ?? {}) };
  delete labels[HASH_LABEL];
  return sortedJson(withoutNullTimestamp({ ...t, metadata: { ...t?.metadata, labels } }));
}

/**
 * A template's `metadata.creationTimestamp: null` (what a protobuf-created or kubectl-copied
 * template carries) and an absent one are the same zero time, as kube's semantic equality says.
 */
function withoutNullTimestamp(template: unknown): unknown {
  if (typeof template !== 'object' || template === null) return template;
  const t = template as { readonly metadata?: Readonly<Record<string, unknown>> };
  if (t.metadata === undefined || t.metadata['creationTimestamp'] !== null) return template;
  const { creationTimestamp: _dropped, ...metadata } = t.metadata;
  return { ...t, metadata };
}

/** `maxSurge` / `maxUnavailable`: an int, or a percentage of `replicas` rounded up (surge) or down. */
export function resolveIntOrPercent(v: number | string | undefined, fallback: string, replicas: number, roundUp: boolean): number {
  const value = v ?? fallback;
  if (typeof value === 'number') return value;
  const pct = Number(value.replace('%', ''));
  const raw = (pct * replicas) / 100;
  return roundUp ? Math.ceil(raw) : Math.floor(raw);
}

const revisionOf = (rs: ReplicaSet): number => Number(rs.metadata?.annotations?.[REVISION] ?? '0') || 0;
const specReplicas = (rs: ReplicaSet): number => rs.spec?.replicas ?? 0;
const available = (rs: ReplicaSet): number => rs.status?.availableReplicas ?? 0;

function newReplicaSet(d: Deployment, hash: string, replicas: number, revision: number): ReplicaSet {
  const template = d.spec?.template ?? {};
  const labels = { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash };
  const selector = d.spec?.selector ?? {};
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata?.name ?? ''}-${hash}`,
      namespace: d.metadata?.namespace,
      labels,
      annotations: { [REVISION]: String(revision), 'deployment.kubernetes.io/desired-replicas': String(d.spec?.replicas ?? 1) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata?.name ?? '', uid: d.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      replicas,
      ...(d.spec?.minReadySeconds !== undefined ? { minReadySeconds: d.spec.minReadySeconds } : {}),
      selector: { ...selector, matchLabels: { ...(selector.matchLabels ?? {}), [HASH_LABEL]: hash } },
      template: { ...template, metadata: { ...template.metadata, labels } } as NonNullable<ReplicaSet['spec']>['template'],
    },
  };
}

/** The status a Deployment reports for its ReplicaSets (conditions keep their times when unchanged). */
export function deploymentStatus(d: Deployment, all: readonly ReplicaSet[], current: ReplicaSet | undefined, nowMs: number): DeploymentStatus {
  const want = d.spec?.replicas ?? 1;
  const sum = (f: (rs: ReplicaSet) => number): number => all.reduce((n, rs) => n + f(rs), 0);
  const replicas = sum((rs) => rs.status?.replicas ?? 0);
  const availableReplicas = sum(available);
  const updatedReplicas = current?.status?.replicas ?? 0;
  const maxUnavailable = resolveIntOrPercent(d.spec?.strategy?.rollingUpdate?.maxUnavailable, '25%', want, false);
  const minAvailable = d.spec?.strategy?.type === 'Recreate' ? want : want - maxUnavailable;
  const complete = updatedReplicas === want && replicas === want && availableReplicas === want && specReplicas(current ?? {}) === want;
  const old = d.status?.conditions ?? [];
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string): DeploymentCondition => {
    const prev = old.find((c) => c.type === type);
    const t = timestamp(nowMs);
    if (prev !== undefined && prev.status === status && prev.reason === reason) return prev;
    return { type, status, lastUpdateTime: t, lastTransitionTime: prev?.status === status ? (prev.lastTransitionTime ?? t) : t, reason, message };
  };
  const rsName = current?.metadata?.name ?? '';
  const readyReplicas = sum((rs) => rs.status?.readyReplicas ?? 0);
  const counts = { replicas, updatedReplicas, readyReplicas, availableReplicas };
  const prevProgressing = old.find((c) => c.type === 'Progressing');
  let progressing: DeploymentCondition;
  if (complete) {
    progressing = condition('Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${rsName}" has successfully progressed.`);
  } else if (prevProgressing === undefined || prevProgressing.reason === 'NewReplicaSetAvailable' || madeProgress(d.status, counts)) {
    // Progress (or a new rollout) refreshes the time the deadline counts from.
    const t = timestamp(nowMs);
    const since = prevProgressing?.status === 'True' ? (prevProgressing.lastTransitionTime ?? t) : t;
    progressing = { type: 'Progressing', status: 'True', lastUpdateTime: t, lastTransitionTime: since, reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` };
  } else if (progressDeadlineDueMs(d, prevProgressing) <= nowMs) {
    progressing = condition('Progressing', 'False', 'ProgressDeadlineExceeded', `ReplicaSet "${rsName}" has timed out progressing.`);
  } else {
    progressing = prevProgressing;
  }
  return {
    observedGeneration: d.metadata?.generation ?? 0,
    ...counts,
    unavailableReplicas: Math.max(0, sum(specReplicas) - availableReplicas),
    conditions: [
      availableReplicas >= minAvailable
        ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
        : condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
      progressing,
    ],
  };
}

/** The progress kube-controller-manager counts: more updated, ready or available replicas, or fewer old ones. */
function madeProgress(before: DeploymentStatus | undefined, after: { replicas: number; updatedReplicas: number; readyReplicas: number; availableReplicas: number }): boolean {
  const b = { replicas: before?.replicas ?? 0, updated: before?.updatedReplicas ?? 0, ready: before?.readyReplicas ?? 0, available: before?.availableReplicas ?? 0 };
  return (
    after.updatedReplicas > b.updated ||
    after.replicas - after.updatedReplicas < b.replicas - b.updated ||
    after.readyReplicas > b.ready ||
    after.availableReplicas > b.available
  );
}

/**
 * When a rollout still progressing times out (ms): its `Progressing` condition's last update plus
 * `progressDeadlineSeconds` (default 600). Infinity when none applies: no deadline (2147483647,
 * as kube's "never"), a finished or already timed-out rollout.
 */
export function progressDeadlineDueMs(d: Deployment, progressing: DeploymentCondition | undefined): number {
  const seconds = d.spec?.progressDeadlineSeconds ?? 600;
  if (seconds >= 2147483647 || progressing === undefined || progressing.status !== 'True' || progressing.reason === 'NewReplicaSetAvailable') return Infinity;
  const from = Date.parse(progressing.lastUpdateTime ?? '');
  return Number.isNaN(from) ? Infinity : from + seconds * 1000;
}

const sameStatus = (a: DeploymentStatus | undefined, b: DeploymentStatus): boolean => sortedJson(a ?? {}) === sortedJson(b);

/**
 * The replica counts each ReplicaSet should have next (one step of a rollout), by name.
 * `current` is the ReplicaSet of the Deployment's template; `olds` the others, oldest first.
 */
export function rolloutStep(d: Deployment, current: ReplicaSet, olds: readonly ReplicaSet[]): Map<string, number> {
  const want = d.spec?.replicas ?? 1;
  const out = new Map<string, number>();
  const name = (rs: ReplicaSet): string => rs.metadata?.name ?? '';
  const oldTotal = olds.reduce((n, rs) => n + specReplicas(rs), 0);
  if (d.spec?.strategy?.type === 'Recreate') {
    for (const rs of olds) if (specReplicas(rs) > 0) out.set(name(rs), 0);
    const oldRunning = olds.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0);
    if (oldTotal === 0 && oldRunning === 0 && specReplicas(current) !== want) out.set(name(current), want);
    return out;
  }
  let surge = resolveIntOrPercent(d.spec?.strategy?.rollingUpdate?.maxSurge, '25%', want, true);
  const unavailable = resolveIntOrPercent(d.spec?.strategy?.rollingUpdate?.maxUnavailable, '25%', want, false);
  if (surge === 0 && unavailable === 0) surge = 1;
  let newCount = specReplicas(current);
  if (oldTotal === 0) {
    if (newCount !== want) out.set(name(current), want); // not rolling: a plain resize
    return out;
  }
  const total = newCount + oldTotal;
  if (newCount < want && total < want + surge) newCount = Math.min(newCount + (want + surge - total), want);
  else if (newCount > want) newCount = want;
  if (newCount !== specReplicas(current)) out.set(name(current), newCount);
  // Scale old ReplicaSets down while at least want - maxUnavailable stay available.
  const minAvailable = want - unavailable;
  const newUnavailable = specReplicas(current) - available(current);
  let budget = total - minAvailable - newUnavailable;
  const next = new Map(olds.map((rs) => [name(rs), specReplicas(rs)]));
  for (const rs of olds) {
    if (budget <= 0) break;
    const cut = Math.min(Math.max(0, specReplicas(rs) - available(rs)), budget);
    next.set(name(rs), (next.get(name(rs)) ?? 0) - cut);
    budget -= cut;
  }
  let canRemove = olds.reduce((n, rs) => n + available(rs), 0) + available(current) - minAvailable;
  for (const rs of olds) {
    if (canRemove <= 0) break;
    const left = next.get(name(rs)) ?? 0;
    const cut = Math.min(left, canRemove);
    next.set(name(rs), left - cut);
    canRemove -= cut;
  }
  for (const rs of olds) if ((next.get(name(rs)) ?? 0) !== specReplicas(rs)) out.set(name(rs), next.get(name(rs)) ?? 0);
  return out;
}

/** Builds the Deployment controller (it owns ReplicaSets; the ReplicaSet controller makes pods). */
export function deploymentController(options: DeploymentControllerOptions): Controller<Deployment> {
  const now = options.now ?? (() => (options.scheduler ?? asyncScheduler).now());
  const replicaSets = informerSource(
    options.informers.replicaSets({ indexers: { [BY_OWNER]: (rs) => { const c = controllerOf(rs); return c?.kind === 'Deployment' ? [c.uid] : []; } } }),
    REPLICA_SETS,
  );
  return controller<Deployment>({
    name: options.name ?? 'deployment',
    for: DEPLOYMENTS,
    owns: [replicaSets],
    informers: options.informers,
    client: options.client,
    skipNameValidation: true,
    concurrency: options.concurrency ?? 5,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    reconcile: async (request, ctx) => {
      const d = ctx.object;
      if (d === undefined || d.metadata?.deletionTimestamp !== undefined) return undefined;
      const rsClient: ObjectClient<ReplicaSet> = ctx.objects<ReplicaSet>(REPLICA_SETS, request.namespace);
      const owned = replicaSets.store.byIndex(BY_OWNER, d.metadata?.uid ?? '').sort((a, b) => revisionOf(a) - revisionOf(b));
      const hash = podTemplateHash(d.spec?.template ?? {});
      const wanted = templateWithoutHash(d.spec?.template);
      const current = owned.find((rs) => rs.metadata?.labels?.[HASH_LABEL] === hash) ?? owned.find((rs) => templateWithoutHash(rs.spec?.template) === wanted);
      const olds = owned.filter((rs) => rs !== current);
      const opts = { signal: ctx.signal };
      const maxRevision = owned.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
      if (d.spec?.paused === true) {
        // Paused: no rollout step; only the status follows the ReplicaSets.
        const status = deploymentStatus(d, owned, current, now());
        if (!sameStatus(d.status, status)) await ctx.objects().patchStatus(request.name, { status }, 'merge', opts);
        return undefined;
      }
      if (current !== undefined && revisionOf(current) < maxRevision) {
        // A rollback (`kubectl rollout undo`) brought an old template back: its ReplicaSet gets the next revision.
        await rsClient.patch(current.metadata?.name ?? '', { metadata: { annotations: { [REVISION]: String(maxRevision + 1) } } }, 'merge', opts);
        return undefined;
      }
      if (current === undefined) {
        const revision = maxRevision + 1;
        const want = d.spec?.replicas ?? 1;
        const oldTotal = olds.reduce((n, rs) => n + specReplicas(rs), 0);
        const surge = resolveIntOrPercent(d.spec?.strategy?.rollingUpdate?.maxSurge, '25%', want, true);
        const initial = d.spec?.strategy?.type === 'Recreate' ? (oldTotal === 0 ? want : 0) : Math.max(0, Math.min(want, want + surge - oldTotal));
        try {
          await rsClient.create(newReplicaSet(d, hash, initial, revision), opts);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
        return undefined; // the new ReplicaSet's add event brings us back
      }
      for (const [name, replicas] of rolloutStep(d, current, olds)) {
        await rsClient.patch(name, { spec: { replicas }, metadata: { annotations: { 'deployment.kubernetes.io/desired-replicas': String(d.spec?.replicas ?? 1) } } }, 'merge', opts);
      }
      const revision = current.metadata?.annotations?.[REVISION];
      if (revision !== undefined && d.metadata?.annotations?.[REVISION] !== revision) {
        await ctx.objects().patch(request.name, { metadata: { annotations: { [REVISION]: revision } } }, 'merge', opts);
      }
      const limit = d.spec?.revisionHistoryLimit ?? 10;
      const idle = olds.filter((rs) => specReplicas(rs) === 0 && (rs.status?.replicas ?? 0) === 0);
      for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) await rsClient.delete(rs.metadata?.name ?? '', opts).catch(() => undefined);
      const status = deploymentStatus(d, owned, current, now());
      if (!sameStatus(d.status, status)) await ctx.objects().patchStatus(request.name, { status }, 'merge', opts);
      // A rollout that stops progressing times out without an event to wake us: look again then.
      const due = progressDeadlineDueMs(d, status.conditions?.find((c) => c.type === 'Progressing'));
      return due === Infinity ? undefined : { requeueAfter: Math.max(1000, due - now() + 1000) };
    },
  });
}
