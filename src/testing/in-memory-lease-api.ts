import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { ApiError } from '../client/api-error.js';
import type { LeaseApi, LeaseRef } from '../leader-election/lease-api.js';
import type { Lease } from '../leader-election/lease.js';

/** The three operations of {@link LeaseApi}. */
export type LeaseOp = 'get' | 'create' | 'update';

/** One request as the fake server sees it (for latency and fault functions). */
export interface LeaseRequest {
  readonly op: LeaseOp;
  /** The client id given to `InMemoryLeaseApi.client(id)` (`"default"` for the api itself). */
  readonly client: string;
  readonly ref: LeaseRef;
  /** Server time the request was sent. */
  readonly at: number;
}

/**
 * A fault for one request: answer with `error` without applying it; `drop-request` (the request
 * never arrives and is never answered); `drop-response` (applied, but the answer is lost).
 */
export type LeaseFault =
  | { readonly kind: 'error'; readonly error: ApiError }
  | { readonly kind: 'drop-request' }
  | { readonly kind: 'drop-response' };

/** One-way delays of a request, in ms of the server's scheduler. */
export interface LeaseLatency {
  readonly request: number;
  readonly response: number;
}

/** A write the fake server applied. */
export interface LeaseWrite {
  readonly at: number;
  readonly client: string;
  readonly op: 'create' | 'update';
  readonly lease: Lease;
}

/** Options of {@link InMemoryLeaseApi}. */
export interface InMemoryLeaseApiOptions {
  /** Clock and timers of the server (and of message delays); default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Delays per request; default none (answers still arrive asynchronously). */
  readonly latency?: (request: LeaseRequest) => LeaseLatency;
  /** A fault per request, or `undefined` for none. */
  readonly fault?: (request: LeaseRequest) => LeaseFault | undefined;
}

/**
 * An in-memory Lease store behind the {@link LeaseApi} interface, for tests: resourceVersion
 * optimistic concurrency (409 Conflict on a stale version, 409 AlreadyExists, 404 NotFound),
 * injectable per-request latency and faults, and a history of applied writes. A request in flight
 * is applied at the server even if the caller unsubscribes (only the answer is abandoned), so
 * late-landing writes are modelled.
 */
export class InMemoryLeaseApi implements LeaseApi {
  private readonly store = new Map<string, Lease>();
  private readonly history: LeaseWrite[] = [];
  private readonly scheduler: SchedulerLike;
  private version = 0;
  private requestCount = 0;
  /** Latency function; may be replaced at any time. */
  latency: ((request: LeaseRequest) => LeaseLatency) | undefined;
  /** Fault function; may be replaced at any time. */
  fault: ((request: LeaseRequest) => LeaseFault | undefined) | undefined;

  constructor(options: InMemoryLeaseApiOptions = {}) {
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.latency = options.latency;
    this.fault = options.fault;
  }

  /** Writes applied so far, oldest first. */
  get writes(): readonly LeaseWrite[] {
    return this.history;
  }

  /** Requests sent so far. */
  get requests(): number {
    return this.requestCount;
  }

  /** The stored Lease (a copy), if any. */
  peek(ref: LeaseRef): Lease | undefined {
    const lease = this.store.get(keyOf(ref));
    return lease === undefined ? undefined : clone(lease);
  }

  /** A {@link LeaseApi} view whose requests carry `client` (for per-client latency and faults). */
  client(client: string): LeaseApi {
    return {
      get: (ref) => this.request('get', client, ref, () => this.doGet(ref)),
      create: (lease) => this.request('create', client, refOf(lease), () => this.doCreate(client, lease)),
      update: (lease) => this.request('update', client, refOf(lease), () => this.doUpdate(client, lease)),
    };
  }

  get(ref: LeaseRef): Observable<Lease> {
    return this.client('default').get(ref);
  }

  create(lease: Lease): Observable<Lease> {
    return this.client('default').create(lease);
  }

  update(lease: Lease): Observable<Lease> {
    return this.client('default').update(lease);
  }

  private request(op: LeaseOp, client: string, ref: LeaseRef, apply: () => Lease): Observable<Lease> {
    return new Observable<Lease>((subscriber) => {
      const request: LeaseRequest = { op, client, ref, at: this.scheduler.now() };
      this.requestCount++;
      const fault = this.fault?.(request);
      const latency = this.latency?.(request) ?? { request: 0, response: 0 };
      let answer: Subscription | undefined;
      let cancelled = false;
      if (fault?.kind === 'drop-request') return () => undefined;
      // The arrival is not cancelled by unsubscribing: a sent request still reaches the server.
      this.scheduler.schedule(() => {
        let outcome: { lease: Lease } | { error: ApiError };
        if (fault?.kind === 'error') outcome = { error: fault.error };
        else {
          try {
            outcome = { lease: apply() };
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            outcome = { error: err };
          }
        }
        if (fault?.kind === 'drop-response' || cancelled) return;
        answer = this.scheduler.schedule(() => {
          if ('lease' in outcome) {
            subscriber.next(outcome.lease);
            subscriber.complete();
          } else subscriber.error(outcome.error);
        }, Math.max(0, latency.response));
      }, Math.max(0, latency.request));
      return () => {
        cancelled = true;
        answer?.unsubscribe();
      };
    });
  }

  private doGet(ref: LeaseRef): Lease {
    const lease = this.store.get(keyOf(ref));
    if (lease === undefined) throw statusError(404, 'NotFound', `leases.coordination.k8s.io "${ref.name}" not found`);
    return clone(lease);
  }

  private doCreate(client: string, lease: Lease): Lease {
    const ref = refOf(lease);
    if (this.store.has(keyOf(ref))) {
      throw statusError(409, 'AlreadyExists', `leases.coordination.k8s.io "${ref.name}" already exists`);
    }
    return this.write(client, 'create', lease);
  }

  private doUpdate(client: string, lease: Lease): Lease {
    const ref = refOf(lease);
    const current = this.store.get(keyOf(ref));
    if (current === undefined) throw statusError(404, 'NotFound', `leases.coordination.k8s.io "${ref.name}" not found`);
    const sent = lease.metadata?.resourceVersion;
    if (sent !== undefined && sent !== '' && sent !== current.metadata?.resourceVersion) {
      throw statusError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on leases.coordination.k8s.io "${ref.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    return this.write(client, 'update', { ...lease, metadata: { ...lease.metadata, uid: current.metadata?.uid } });
  }

  private write(client: string, op: 'create' | 'update', lease: Lease): Lease {
    const ref = refOf(lease);
    this.version++;
    const stored: Lease = clone({
      ...lease,
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...lease.metadata, uid: lease.metadata?.uid ?? `uid-${this.version}`, resourceVersion: String(this.version) },
    });
    this.store.set(keyOf(ref), stored);
    this.history.push({ at: this.scheduler.now(), client, op, lease: stored });
    return clone(stored);
  }
}

function refOf(lease: Lease): LeaseRef {
  return { namespace: lease.metadata?.namespace ?? '', name: lease.metadata?.name ?? '' };
}

function keyOf(ref: LeaseRef): string {
  return `${ref.namespace}/${ref.name}`;
}

function clone(lease: Lease): Lease {
  return JSON.parse(JSON.stringify(lease)) as Lease;
}

function statusError(code: number, reason: string, message: string): ApiError {
  return new ApiError({ apiVersion: 'v1', kind: 'Status', status: 'Failure', code, reason, message });
}
