/** One request the server received. */
export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  /** The query string including `?`, or ''. */
  readonly search: string;
  readonly watch: boolean;
  /** `group/plural` for resource requests (`/pods`, `apps/deployments`). */
  readonly resourceId: string | undefined;
  /** Milliseconds since the epoch. */
  readonly time: number;
  /**
   * Media type of the request body as sent in `Content-Type`, parameters dropped
   * (`application/json`, `application/vnd.kubernetes.protobuf`, `application/merge-patch+json`…);
   * '' when the request had none.
   */
  readonly contentType: string;
  /** The `Accept` header as sent ('' when none), e.g. `application/vnd.kubernetes.protobuf,application/json`. */
  readonly accept: string;
}

/** What to count; every field is optional. `path` is an exact path or a RegExp. */
export interface RequestFilter {
  readonly method?: string;
  readonly path?: string | RegExp;
  readonly watch?: boolean;
  readonly resourceId?: string;
  /** Media type of the request body (see {@link RequestRecord.contentType}). */
  readonly contentType?: string;
}

/**
 * Records every request (method, path, query, watch or not, body media type, Accept) so tests can
 * count them. Keeps the newest `limit` records (older ones are dropped, so long benchmarks do not grow without bound).
 */
export class RequestLog {
  private records: RequestRecord[] = [];

  constructor(private readonly limit = 200_000) {}

  record(method: string, path: string, search: string, watch: boolean, resourceId: string | undefined, contentType = '', accept = ''): void {
    this.records.push({ method, path, search, watch, resourceId, time: Date.now(), contentType, accept });
    if (this.records.length > this.limit * 1.25) this.records = this.records.slice(this.records.length - this.limit);
  }

  /** All records, oldest first. */
  all(): readonly RequestRecord[] {
    return this.records;
  }

  /** How many requests match the filter. */
  count(filter: RequestFilter = {}): number {
    return this.filter(filter).length;
  }

  /** The requests that match the filter. */
  filter(f: RequestFilter = {}): RequestRecord[] {
    return this.records.filter(
      (r) =>
        (f.method === undefined || r.method === f.method.toUpperCase()) &&
        (f.watch === undefined || r.watch === f.watch) &&
        (f.resourceId === undefined || r.resourceId === f.resourceId) &&
        (f.contentType === undefined || r.contentType === f.contentType) &&
        (f.path === undefined || (typeof f.path === 'string' ? r.path === f.path : f.path.test(r.path))),
    );
  }

  /** Forgets every record. */
  clear(): void {
    this.records = [];
  }
}
