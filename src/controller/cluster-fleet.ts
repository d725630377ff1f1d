import { first, type Observable, type SchedulerLike, Subject, Subscription } from 'rxjs';
import type { KubeObject } from '../api/kube-object.js';
import type { Logger } from '../logging/logger.js';
import type { ControllerMetricsRecorder } from '../metrics/controller-metrics.js';
import type { WorkQueueAdd } from '../workqueue/request.js';
import type { DropRequests } from '../workqueue/work-queue-options.js';
import { ClusterEventError, ClusterRemovedError } from './cluster-errors.js';
import type { BoundCluster, ClusterParts, ClusterStream } from './controller-definition.js';
import { CacheSyncTimeoutError } from './controller-errors.js';
import type { ClusterEvent, ClusterTarget } from './controller-options.js';
import { sourceName } from './controller-source.js';
import { RequestGate } from './request-gate.js';

/**
 * Where one engaged cluster is:
 * - `syncing`: a handler is registered on each of its sources (its informers run); its requests
 *   are held until every registration synced (CR-5, per cluster). After `cacheSyncTimeoutMs` a
 *   `CacheSyncTimeoutError` is logged and it keeps waiting (its informers keep retrying); the
 *   other clusters are served meanwhile.
 * - `serving`: in `def.clusters`; its held requests, then every new one, go to the work queue.
 * - `gone`: removed, replaced, failed or the run stopped: its handlers are released (its
 *   informers stop), it is out of `def.clusters`, and (unless the run stopped) its keys are
 *   dropped from the work queue and its running reconciles aborted with a `ClusterRemovedError`.
 */
export type EngagedClusterState = 'syncing' | 'serving' | 'gone';

/** What a fleet works with: the controller's cluster stream and where serving clusters' requests go. */
export interface FleetDeps<T extends KubeObject> {
  readonly controller: string;
  readonly stream: ClusterStream<T>;
  /** Where a serving cluster's requests go (the run's request gate). */
  readonly push: (add: WorkQueueAdd) => void;
  readonly scheduler: SchedulerLike;
  readonly cacheSyncTimeoutMs: number;
  readonly logger: Logger;
  /** Called when a cluster is gone (read-your-writes forgets its caches and writes). */
  readonly forget?: (cluster: string) => void;
  /** Cluster counts and departed clusters' series (`rxkube_multicluster_*`). */
  readonly metrics?: ControllerMetricsRecorder | undefined;
}

/** One engagement of a cluster: a `changed` event makes a new one. */
class EngagedCluster<T extends KubeObject> {
  state: EngagedClusterState = 'syncing';
  readonly handlers = new Subscription();
  readonly gate = new RequestGate();
  readonly unsynced = new Set<number>();
  syncTimer: Subscription | undefined;
  constructor(
    readonly name: string,
    readonly bound: BoundCluster<T>,
    readonly parts: ClusterParts<T>,
  ) {}
}

/**
 * The clusters of one run of a multi-cluster controller over a changing fleet: engages each
 * cluster its stream adds, serves it once its caches synced, and lets it go when removed or
 * replaced. Internal to the controller run. Every step is synchronous with the event that causes
 * it: once a `removed` event has been handed to the fleet, no reconcile of that cluster starts.
 */
export class ClusterFleet<T extends KubeObject> {
  private readonly engaged = new Map<string, EngagedCluster<T>>();
  private readonly dropOrders = new Subject<DropRequests>();
  /** Orders for the work queue (`WorkQueueOptions.drop`): a cluster's keys, when it is gone. */
  readonly drops: Observable<DropRequests> = this.dropOrders.asObservable();
  private events: Subscription | undefined;
  private stopped = false;

  constructor(private readonly deps: FleetDeps<T>) {}

  /** Follows the cluster stream. Call once the work queue takes `drops`. */
  start(): void {
    if (this.stopped || this.events !== undefined) return;
    this.events = this.deps.stream.events$.subscribe({
      next: (event) => this.apply(event),
      error: (err: unknown) =>
        this.deps.logger.error('cluster stream failed: the clusters engaged stay, no more join or leave', { err }),
    });
  }

  /** Acts on one cluster event; a bad event is logged (`ClusterEventError`) and skipped. */
  apply(event: ClusterEvent): void {
    if (this.stopped) return;
    const name = (event as { name?: unknown } | null)?.name;
    const type = (event as { type?: unknown } | null)?.type;
    if (typeof name !== 'string') {
      this.report(new ClusterEventError(this.deps.controller, String(name), 'cluster event without a name, skipped'));
      return;
    }
    if (type === 'removed') {
      const current = this.engaged.get(name);
      if (current !== undefined) this.letGo(current, 'removed');
    } else if (type === 'added' || type === 'changed') {
      this.engage(name, (event as { cluster: ClusterTarget }).cluster);
    } else {
      this.report(new ClusterEventError(this.deps.controller, name, `unknown cluster event type ${JSON.stringify(type)}, skipped`));
    }
  }

  /** The run stopped: every cluster's handlers are released (the work queue stops on its own). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.events?.unsubscribe();
    for (const c of [...this.engaged.values()]) this.letGo(c, 'stopped');
    this.dropOrders.complete();
  }

  // ---- one cluster -----------------------------------------------------------------------------

  private engage(name: string, target: ClusterTarget): void {
    const previous = this.engaged.get(name);
    if (previous !== undefined) this.letGo(previous, 'replaced');
    let bound: BoundCluster<T>;
    try {
      bound = this.deps.stream.bind(name, target);
    } catch (err) {
      this.report(new ClusterEventError(this.deps.controller, name, `cannot be engaged: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
      return;
    }
    const c = new EngagedCluster(name, bound, { client: bound.client, forStore: bound.forStore });
    this.engaged.set(name, c);
    this.count();
    this.deps.logger.info('cluster engaged, waiting for its caches', { cluster: name });
    // Register every handler first, so the initial lists are held while the caches sync.
    const registrations = bound.bindings.map((binding) => ({ binding, registration: binding.source.register() }));
    const failed = (err: unknown): void => this.failed(c, err);
    for (const { binding, registration } of registrations) {
      c.handlers.add(registration.events$.pipe(binding.toRequests).subscribe({ next: (add) => c.gate.push(add), error: failed }));
    }
    registrations.forEach((_, i) => c.unsynced.add(i));
    registrations.forEach(({ registration }, i) => {
      c.handlers.add(
        registration.synced$.pipe(first((v) => v === true)).subscribe({
          next: () => this.synced(c, i),
          error: failed,
        }),
      );
    });
    if (c.state === 'syncing' && c.unsynced.size === 0) this.serve(c);
    if (c.state === 'syncing') {
      const names = registrations.map((r) => sourceName(r.binding.source));
      c.syncTimer = this.deps.scheduler.schedule(() => {
        if (c.state !== 'syncing') return;
        const waiting = [...c.unsynced].map((i) => names[i] as string);
        this.report(new CacheSyncTimeoutError(this.deps.controller, waiting, this.deps.cacheSyncTimeoutMs), name, 'still waiting');
      }, this.deps.cacheSyncTimeoutMs);
    }
  }

  private synced(c: EngagedCluster<T>, index: number): void {
    c.unsynced.delete(index);
    if (c.unsynced.size === 0 && c.state === 'syncing') this.serve(c);
  }

  /** syncing → serving: the cluster's requests reach the queue, its parts `def.clusters`. */
  private serve(c: EngagedCluster<T>): void {
    c.state = 'serving';
    c.syncTimer?.unsubscribe();
    this.deps.stream.serving.set(c.name, c.parts);
    this.count();
    this.deps.logger.info('cluster serving: caches synced', { cluster: c.name });
    c.handlers.add(c.gate.open().subscribe((add) => this.deps.push(add)));
  }

  /** A source of the cluster failed: the cluster is let go, the others go on. */
  private failed(c: EngagedCluster<T>, err: unknown): void {
    if (c.state === 'gone') return;
    this.report(new ClusterEventError(this.deps.controller, c.name, `a source failed, the cluster is let go: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
    this.letGo(c, 'removed');
  }

  /** any → gone. */
  private letGo(c: EngagedCluster<T>, why: 'removed' | 'replaced' | 'stopped'): void {
    if (c.state === 'gone') return;
    c.state = 'gone';
    if (this.engaged.get(c.name) === c) this.engaged.delete(c.name);
    if (this.deps.stream.serving.get(c.name) === c.parts) this.deps.stream.serving.delete(c.name);
    c.syncTimer?.unsubscribe();
    c.handlers.unsubscribe(); // the cluster's listeners leave: its informers stop
    c.gate.close();
    if (why !== 'stopped') {
      this.dropOrders.next({ matches: (r) => r.cluster === c.name, reason: new ClusterRemovedError(this.deps.controller, c.name, why) });
    }
    this.deps.forget?.(c.name);
    if (why !== 'replaced') this.deps.metrics?.clusterLeft?.(this.deps.controller, c.name);
    this.count();
    this.deps.logger.info('cluster let go', { cluster: c.name, why });
  }

  private count(): void {
    let syncing = 0;
    for (const c of this.engaged.values()) if (c.state === 'syncing') syncing++;
    this.deps.metrics?.clusters?.(this.deps.controller, { syncing, serving: this.engaged.size - syncing });
  }

  private report(err: Error, cluster?: string, note?: string): void {
    this.deps.logger.error(note === undefined ? err.message : `${err.message} (${note})`, { err, ...(cluster === undefined ? {} : { cluster }) });
  }
}
