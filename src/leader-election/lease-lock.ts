import { defer, map, type Observable, tap, throwError } from 'rxjs';
import { type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { LeaseApi, LeaseRef } from './lease-api.js';
import { type Lease, type LeaderElectionRecord, leaseSpecToRecord, recordToLeaseSpec } from './lease.js';

/** `update` was called before any `get` or `create` succeeded (docs/semantics.md LE-3). */
export class LeaseNotInitializedError extends RxkubeError {
  static override readonly code: string = 'LEADER_ELECTION_LEASE_NOT_INITIALIZED';
  static override readonly layer: ErrorLayer = 'leader-election';
  override readonly name = 'LeaseNotInitializedError';
  constructor() {
    super('lease not initialized, call get or create first');
  }
}

/** What `LeaseLock.get` returns: the record and its raw serialisation (compared to detect change). */
export interface ObservedRecord {
  readonly record: LeaderElectionRecord;
  /** Stable serialisation of the Lease spec; two reads are "the same record" iff these are equal. */
  readonly raw: string;
}

/** Options of {@link LeaseLock}. */
export interface LeaseLockOptions {
  /** Labels merged into the Lease on every create and update (LE-2). */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Where the lock records its `LeaderElection` Events (Normal, on the Lease: `<identity> became
   * leader`, `<identity> stopped leading`), as client-go's lock does (LE-9). None by default.
   */
  readonly eventRecorder?: EventRecorder;
}

/**
 * A resource lock on one `coordination.k8s.io/v1` Lease (docs/semantics.md LE-2, LE-3). It caches the
 * Lease returned by the last successful get/create/update; `update` sends that cached object with
 * a new spec, so its `metadata.resourceVersion` makes a concurrent writer's update fail with
 * 409 Conflict (optimistic concurrency).
 */
export class LeaseLock {
  private cached: Lease | undefined;

  constructor(
    private readonly api: LeaseApi,
    /** Namespace and name of the Lease. */
    readonly ref: LeaseRef,
    /** This candidate's identity, written as `holderIdentity` when it holds the lease. */
    readonly identity: string,
    private readonly options: LeaseLockOptions = {},
  ) {}

  /** `namespace/name` of the Lease. */
  describe(): string {
    return `${this.ref.namespace}/${this.ref.name}`;
  }

  /** Reads the Lease (404 → `ApiError` NotFound) and caches it. */
  get(): Observable<ObservedRecord> {
    return defer(() => this.api.get(this.ref)).pipe(
      tap((lease) => (this.cached = lease)),
      map(observedRecordOf),
    );
  }

  /** Creates the Lease holding `record`. */
  create(record: LeaderElectionRecord): Observable<ObservedRecord> {
    return defer(() =>
      this.api.create({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.ref.name, namespace: this.ref.namespace, ...this.labelsPatch(undefined) },
        spec: recordToLeaseSpec(record),
      }),
    ).pipe(
      tap((lease) => (this.cached = lease)),
      map(observedRecordOf),
    );
  }

  /** Replaces the cached Lease's spec with `record` (conditional on the cached resourceVersion). */
  update(record: LeaderElectionRecord): Observable<ObservedRecord> {
    return defer(() => {
      const current = this.cached;
      if (current === undefined) return throwError(() => new LeaseNotInitializedError());
      return this.api.update({
        ...current,
        metadata: { ...current.metadata, ...this.labelsPatch(current.metadata?.labels) },
        spec: recordToLeaseSpec(record),
      });
    }).pipe(
      tap((lease) => (this.cached = lease)),
      map(observedRecordOf),
    );
  }

  /**
   * Records a Normal `LeaderElection` Event `<identity> <what>` on the Lease (the last one read or
   * written, so the Event carries its UID), when the lock has an event recorder (LE-9).
   */
  recordEvent(what: string): void {
    const recorder = this.options.eventRecorder;
    if (recorder === undefined) return;
    const meta = this.cached?.metadata;
    recorder.event(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: this.ref.namespace,
        name: this.ref.name,
        ...(meta?.uid === undefined ? {} : { uid: meta.uid }),
        ...(meta?.resourceVersion === undefined ? {} : { resourceVersion: meta.resourceVersion }),
      },
      'Normal',
      'LeaderElection',
      `${this.identity} ${what}`,
    );
  }

  private labelsPatch(existing: Readonly<Record<string, string>> | undefined): { labels?: Record<string, string> } {
    if (this.options.labels === undefined && existing === undefined) return {};
    return { labels: { ...existing, ...this.options.labels } };
  }
}

/** The record and raw serialisation of a Lease. */
export function observedRecordOf(lease: Lease): ObservedRecord {
  const record = leaseSpecToRecord(lease.spec);
  return { record, raw: JSON.stringify(recordToLeaseSpec(record)) };
}
