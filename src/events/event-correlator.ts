import type { SchedulerLike } from 'rxjs';
import type { CoreEvent, EventPatch } from './core-event.js';
import { LruCache } from './lru-cache.js';
import { TokenBucket } from './token-bucket.js';

/** Tuning of {@link EventCorrelator}; defaults are client-go's. */
export interface EventCorrelatorOptions {
  /** Unique messages for one source/object/type/reason before they are combined. Default 10. */
  readonly maxSimilarEvents?: number;
  /** Window (ms) in which similar events count towards combining. Default 600 000 (10 min). */
  readonly similarEventWindow?: number;
  /** Spam filter refill rate per source+object, events per second. Default 1/300. */
  readonly spamQps?: number;
  /** Spam filter burst per source+object. Default 25. */
  readonly spamBurst?: number;
  /** Entries per LRU cache. Default 4096. */
  readonly cacheSize?: number;
}

/** What to do with an event: drop it, create it, or patch the existing one. */
export type CorrelationResult =
  | { readonly action: 'skip' }
  | { readonly action: 'create'; readonly event: CoreEvent; readonly key: string }
  | { readonly action: 'patch'; readonly event: CoreEvent; readonly patch: EventPatch; readonly key: string };

interface Observation {
  readonly count: number;
  readonly firstTimestamp: string;
  readonly name: string;
  readonly resourceVersion?: string;
}

interface AggregateRecord {
  readonly messages: Set<string>;
  readonly lastSeen: number;
}

/** The prefix client-go puts on combined events. */
export const COMBINED_EVENT_PREFIX = '(combined from similar events): ';

const SEP = '\u0000';

function objectKey(e: CoreEvent): string[] {
  const o = e.involvedObject;
  return [e.source.component, e.source.host ?? '', o.kind ?? '', o.namespace ?? '', o.name ?? '', o.uid ?? '', o.apiVersion ?? ''];
}

/** Identity of an exact repeat: source, object, type, reason and message. */
export function eventKey(e: CoreEvent): string {
  return [...objectKey(e), e.type, e.reason, e.message, e.reportingComponent ?? '', e.reportingInstance ?? ''].join(SEP);
}

function aggregateKey(e: CoreEvent): string {
  return [...objectKey(e), e.type, e.reason, e.reportingComponent ?? '', e.reportingInstance ?? ''].join(SEP);
}

/**
 * client-go's EventCorrelator, on an injectable clock:
 * 1. aggregation: once `maxSimilarEvents` different messages with the same source, object, type
 *    and reason were seen within `similarEventWindow`, further ones become one combined event
 *    (message prefixed `(combined from similar events): `) that is counted up instead;
 * 2. deduplication: an exact repeat of an event seen before becomes a patch of the existing Event
 *    (count+1, new lastTimestamp, same name and firstTimestamp) instead of a new Event;
 * 3. spam filter: a token bucket per source+object (default burst 25, refill 1 per 5 min) drops
 *    events beyond the rate.
 */
export class EventCorrelator {
  private readonly aggregates: LruCache<string, AggregateRecord>;
  private readonly observations: LruCache<string, Observation>;
  private readonly spam: LruCache<string, TokenBucket>;
  private readonly maxSimilar: number;
  private readonly window: number;
  private readonly spamQps: number;
  private readonly spamBurst: number;

  constructor(
    private readonly scheduler: SchedulerLike,
    options: EventCorrelatorOptions = {},
    /** Makes the name of a new combined event for `objectName` at `now`. */
    private readonly makeName: (objectName: string) => string,
  ) {
    const size = options.cacheSize ?? 4096;
    this.aggregates = new LruCache(size);
    this.observations = new LruCache(size);
    this.spam = new LruCache(size);
    this.maxSimilar = options.maxSimilarEvents ?? 10;
    this.window = options.similarEventWindow ?? 600_000;
    this.spamQps = options.spamQps ?? 1 / 300;
    this.spamBurst = options.spamBurst ?? 25;
  }

  /** Decides how to write `event` (a fresh Event with count 1), updating the caches. */
  correlate(event: CoreEvent): CorrelationResult {
    const [aggregated, key] = this.aggregate(event);
    const observed = this.observe(aggregated, key);
    if (!this.allow(observed.event)) return { action: 'skip' };
    return observed.patch
      ? { action: 'patch', event: observed.event, patch: observed.patch, key }
      : { action: 'create', event: observed.event, key };
  }

  /** Records the server's copy of an event written under `key` (name and resourceVersion). */
  updateState(key: string, written: CoreEvent): void {
    this.observations.set(key, {
      count: written.count,
      firstTimestamp: written.firstTimestamp,
      name: written.metadata.name,
      ...(written.metadata.resourceVersion === undefined ? {} : { resourceVersion: written.metadata.resourceVersion }),
    });
  }

  private aggregate(event: CoreEvent): [CoreEvent, string] {
    const now = this.scheduler.now();
    const aKey = aggregateKey(event);
    let record = this.aggregates.get(aKey);
    if (record === undefined || now - record.lastSeen > this.window) {
      record = { messages: new Set(), lastSeen: now };
    }
    const messages = record.messages;
    messages.add(event.message);
    this.aggregates.set(aKey, { messages, lastSeen: now });
    if (messages.size < this.maxSimilar) return [event, eventKey(event)];
    const first = messages.values().next();
    if (!first.done) messages.delete(first.value);
    const ts = event.lastTimestamp;
    const combined: CoreEvent = {
      ...event,
      metadata: { name: this.makeName(event.involvedObject.name ?? ''), namespace: event.metadata.namespace },
      count: 1,
      firstTimestamp: ts,
      lastTimestamp: ts,
      message: `${COMBINED_EVENT_PREFIX}${event.message}`,
    };
    return [combined, aKey];
  }

  private observe(event: CoreEvent, key: string): { event: CoreEvent; patch?: EventPatch } {
    const last = this.observations.get(key);
    let out = event;
    let patch: EventPatch | undefined;
    if (last !== undefined && last.count > 0) {
      out = {
        ...event,
        metadata: {
          ...event.metadata,
          name: last.name,
          ...(last.resourceVersion === undefined ? {} : { resourceVersion: last.resourceVersion }),
        },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: out.count, lastTimestamp: out.lastTimestamp, message: out.message };
    }
    this.observations.set(key, {
      count: out.count,
      firstTimestamp: out.firstTimestamp,
      name: out.metadata.name,
      ...(out.metadata.resourceVersion === undefined ? {} : { resourceVersion: out.metadata.resourceVersion }),
    });
    return patch ? { event: out, patch } : { event: out };
  }

  private allow(event: CoreEvent): boolean {
    const key = objectKey(event).join(SEP);
    let bucket = this.spam.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.spamQps, this.spamBurst, this.scheduler);
      this.spam.set(key, bucket);
    }
    return bucket.tryTake();
  }
}
