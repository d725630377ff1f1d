import type { Status } from 'rxkube';
import type { ObjectStore } from './object-store.js';
import type { WatchHub } from './watch-hub.js';

/** Which requests a fault applies to. `path` is a prefix string or a RegExp tested on the URL path. */
export interface RequestMatch {
  /** HTTP method (upper case); any when omitted. */
  readonly method?: string;
  /** Path prefix (without query) or a RegExp on the path; any when omitted. */
  readonly path?: string | RegExp;
  /** Only watch requests (true), only non-watch requests (false), or both (omitted). */
  readonly watch?: boolean;
}

/** A failure to answer instead of serving the request. */
export interface FailSpec extends RequestMatch {
  /** How many matching requests fail (default 1). */
  readonly count?: number;
  /** HTTP status code, e.g. 500, 503, 429. */
  readonly code: number;
  /** Status reason; derived from the code when omitted. */
  readonly reason?: string;
  readonly message?: string;
  /** Sets the `Retry-After` header and `details.retryAfterSeconds` (typical with 429). */
  readonly retryAfterSeconds?: number;
}

interface FailRule extends FailSpec {
  remaining: number;
}

interface LatencyRule extends RequestMatch {
  readonly ms: number;
}

interface DropAfterRule extends RequestMatch {
  readonly events: number;
  remaining: number;
}

/** Whether `method path` (watch or not) matches. */
export function matchesRequest(m: RequestMatch, method: string, path: string, watch: boolean): boolean {
  if (m.method !== undefined && m.method.toUpperCase() !== method) return false;
  if (m.watch !== undefined && m.watch !== watch) return false;
  if (m.path === undefined) return true;
  return typeof m.path === 'string' ? path === m.path || path.startsWith(m.path.endsWith('/') ? m.path : `${m.path}/`) || path.startsWith(`${m.path}?`) : m.path.test(path);
}

/**
 * Programmatic fault injection. Every method takes effect at once; `clear()` removes the
 * request-level rules (failures, latency, drop-after) and unfreezes watches.
 */
export class Faults {
  private fails: FailRule[] = [];
  private latencies: LatencyRule[] = [];
  private dropAfters: DropAfterRule[] = [];

  constructor(
    private readonly hub: WatchHub,
    private readonly store: ObjectStore,
    private readonly restartHook: (downMs: number) => Promise<void>,
  ) {}

  /** Fail the next `count` (default 1) requests matching method and path with `code`. */
  failNext(spec: FailSpec): void {
    this.fails.push({ ...spec, remaining: spec.count ?? 1 });
  }

  /** Delay every matching request (watches: before the stream starts) by `ms`. */
  latency(ms: number, match: RequestMatch = {}): void {
    this.latencies.push({ ...match, ms });
  }

  /**
   * The next `count` (default: every) matching watches close after `events` events (ADDED,
   * MODIFIED, DELETED and BOOKMARK all count).
   */
  dropWatchAfter(events: number, match: RequestMatch & { readonly count?: number } = {}): void {
    this.dropAfters.push({ ...match, events, remaining: match.count ?? Infinity });
  }

  /**
   * Drops every open watch (optionally of one resource id such as `/pods` or `apps/deployments`).
   * `abrupt` destroys the socket; otherwise the chunked stream ends cleanly. Returns how many.
   */
  dropWatches(options: { readonly resourceId?: string; readonly abrupt?: boolean } = {}): number {
    const cs = this.hub.connections(options.resourceId);
    for (const c of cs) {
      if (options.abrupt === true) c.destroy();
      else c.end();
    }
    return cs.length;
  }

  /** Sends an ERROR event carrying `status` to open watches (then closes them, as kube-apiserver does). */
  injectWatchError(status: Status, options: { readonly resourceId?: string } = {}): number {
    const cs = this.hub.connections(options.resourceId);
    const full: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', ...status };
    for (const c of cs) c.error(full);
    return cs.length;
  }

  /** Forgets history up to `rv` (default: now): watches and exact lists from older versions get 410. */
  compact(rv?: number): void {
    this.store.compact(rv);
  }

  /** Stops writing to open watches (and new ones) without closing them. */
  freezeWatches(): void {
    this.hub.freeze();
  }

  /** Resumes frozen watches; queued events are delivered. */
  unfreezeWatches(): void {
    this.hub.unfreeze();
  }

  /** Closes every connection and stops listening for `downMs`, then listens on the same port; state is kept. */
  restart(downMs = 0): Promise<void> {
    return this.restartHook(downMs);
  }

  /** Removes failure, latency and drop-after rules and unfreezes watches. */
  clear(): void {
    this.fails = [];
    this.latencies = [];
    this.dropAfters = [];
    this.hub.unfreeze();
  }

  /** @internal The failure to answer for this request, if a rule matches (consumes one). */
  takeFailure(method: string, path: string, watch: boolean): FailSpec | undefined {
    const rule = this.fails.find((f) => f.remaining > 0 && matchesRequest(f, method, path, watch));
    if (rule === undefined) return undefined;
    rule.remaining--;
    this.fails = this.fails.filter((f) => f.remaining > 0);
    return rule;
  }

  /** @internal Total latency for this request. */
  latencyFor(method: string, path: string, watch: boolean): number {
    return this.latencies.filter((l) => matchesRequest(l, method, path, watch)).reduce((a, l) => a + l.ms, 0);
  }

  /** @internal Event limit for a new watch (consumes one use of the rule). */
  takeWatchLimit(method: string, path: string): number | undefined {
    const rule = this.dropAfters.find((d) => d.remaining > 0 && matchesRequest(d, method, path, true));
    if (rule === undefined) return undefined;
    rule.remaining--;
    return rule.events;
  }
}
