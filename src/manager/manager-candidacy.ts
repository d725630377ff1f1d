import type { Subscription } from 'rxjs';
import type { Registry } from 'prom-client';
import { leaderStatusMetric } from '../metrics/leader-election-metrics.js';
import type { Leadership, ManagerLeaderElectionConfig } from './leader-election-options.js';

/** How a manager campaigns for leadership (CR-11). */
export interface CandidacyOptions {
  readonly config: ManagerLeaderElectionConfig;
  /** Builds the elector (the configured factory or the Lease-based default); may throw. */
  readonly createElector: (config: ManagerLeaderElectionConfig) => Leadership;
  /** Where `leader_election_master_status{name=<id>}` is kept. */
  readonly registry: Registry;
}

/** What a {@link Candidacy} reports to the manager's run. */
export interface CandidacyEvents {
  /** The elector could not be created. */
  failed(err: unknown): void;
  /** This process started leading. */
  elected(): void;
  /** It stopped leading, or `leading$` errored (`cause`) or completed (also before ever leading). */
  lost(cause: unknown): void;
}

/**
 * The manager's side of leader election: subscribes to the elector's `leading$` when the run
 * reaches its electing phase, turns the values into elected / lost edges and keeps the
 * `leader_election_master_status` gauge in step. `cancel()` (the last step of the stop procedure,
 * CR-14) unsubscribes, which stops campaigning, and sets the gauge to 0.
 */
export class Candidacy {
  private leading = false;
  private subscription: Subscription | undefined;
  private setStatus: ((leading: boolean) => void) | undefined;

  constructor(
    private readonly options: CandidacyOptions,
    private readonly events: CandidacyEvents,
  ) {}

  /** `<namespace>/<id>` of the lease, for logs. */
  get lease(): string {
    return `${this.options.config.namespace}/${this.options.config.id}`;
  }

  /** Registers the gauge (at 0), builds the elector and subscribes to `leading$`. */
  campaign(): void {
    this.setStatus = leaderStatusMetric(this.options.registry, this.options.config.id);
    let elector: Leadership;
    try {
      elector = this.options.createElector(this.options.config);
    } catch (err) {
      this.events.failed(err);
      return;
    }
    this.subscription = elector.leading$.subscribe({
      next: (isLeader) => this.observe(isLeader),
      error: (err: unknown) => this.end(err),
      complete: () => this.end(undefined),
    });
  }

  /** Stops campaigning and sets the gauge to 0. */
  cancel(): void {
    this.subscription?.unsubscribe();
    this.setStatus?.(false);
  }

  private observe(isLeader: boolean): void {
    if (isLeader && !this.leading) {
      this.leading = true;
      this.setStatus?.(true);
      this.events.elected();
    } else if (!isLeader && this.leading) {
      this.leading = false;
      this.end(undefined);
    }
  }

  private end(cause: unknown): void {
    this.setStatus?.(false);
    this.events.lost(cause);
  }
}
