import type { ServerResponse } from 'node:http';
import type { UnstructuredObject } from 'rxkube';
import type { Status } from 'rxkube';
import type { ObjectStore, StoreEvent, StoredEntry } from './object-store.js';

/** Which objects a watch sees. */
export interface WatchFilter {
  readonly resourceId: string;
  readonly namespace: string | undefined;
  readonly matches: (object: UnstructuredObject) => boolean;
}

/** Options of one watch connection. */
export interface WatchConnectionOptions {
  readonly filter: WatchFilter;
  /** `kind` and `apiVersion` written in BOOKMARK objects. */
  readonly kind: string;
  readonly apiVersion: string;
  readonly bookmarks: boolean;
  readonly bookmarkIntervalMs: number;
  readonly timeoutMs: number | undefined;
  /** Close after this many events (fault injection); undefined = never. */
  readonly maxEvents: number | undefined;
  /** Only events with a newer resourceVersion are sent (a watch from a version in the future). */
  readonly afterRv?: number;
  /** Renders the event object (default: the stored JSON); used for `Table` watches. */
  readonly renderObject?: (entry: StoredEntry) => string;
  /**
   * Renders the event object asynchronously (a CRD conversion webhook); events keep their order
   * (a later event, bookmark or error waits for the earlier ones). A rejection with a `status`
   * ends the watch with that ERROR event. More than `maxPending` events waiting end the watch
   * (as kube-apiserver closes a watcher that cannot keep up; the client watches again).
   */
  readonly renderAsync?: { readonly render: (entry: StoredEntry) => Promise<string>; readonly maxPending: number };
}

/**
 * The lines of one store event, shared by every watch it is fanned out to: a watch with the
 * default rendering (the stored JSON) takes its line from here, so the line is built once however
 * many watches see it, and watches that queued the same lines write the same bytes (see
 * {@link joinShared}). Built lazily per event type (a selector can turn one change into ADDED for
 * one watch and MODIFIED for another).
 */
export class SharedEventLines {
  private readonly lines = new Map<string, string>();
  constructor(private readonly entry: StoredEntry) {}

  /** The `{"type":…,"object":…}` line of this event as `type`. */
  line(type: string): string {
    let line = this.lines.get(type);
    if (line === undefined) {
      line = `{"type":"${type}","object":${this.entry.json}}\n`;
      this.lines.set(type, line);
    }
    return line;
  }
}

/**
 * The last batch joined for a watch and what was written for it, kept for the other watches
 * flushing in the same turn of the event loop: watches that queued the same lines (the same
 * events, fanned out together) write the same bytes, encoded once, instead of each joining and
 * encoding its own copy. Forgotten at the next turn.
 */
let lastBatch: { queue: readonly string[]; text: string; bytes: Buffer | undefined } | undefined;
let forgetScheduled = false;

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The queued lines as one chunk to write: the text for the first watch, the same bytes (encoded once) for the next ones. */
export function joinShared(queue: readonly string[]): string | Buffer {
  if (queue.length === 1) return queue[0] ?? '';
  const last = lastBatch;
  if (last !== undefined && last.queue.length === queue.length && (last.queue === queue || sameLines(last.queue, queue))) {
    last.bytes ??= Buffer.from(last.text);
    return last.bytes;
  }
  const text = queue.join('');
  lastBatch = { queue, text, bytes: undefined };
  if (!forgetScheduled) {
    forgetScheduled = true;
    setImmediate(() => {
      forgetScheduled = false;
      lastBatch = undefined;
    });
  }
  return text;
}

/** A line not yet rendered (renderAsync), or rendered; in stream order. */
interface PendingLine {
  line: string | undefined;
  /** An ERROR line: the stream ends after it. */
  readonly ends?: true;
}

/** An open watch: filters store events, serializes them into JSON lines and writes them in batches. */
export class WatchConnection {
  private queue: string[] = [];
  private flushScheduled = false;
  private waitingDrain = false;
  private closed = false;
  private frozen = false;
  private eventsLeft: number;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Lines waiting for an asynchronous render, in order; empty without `renderAsync`. */
  private pending: PendingLine[] = [];
  /** Events written (or queued) so far, bookmarks included. */
  eventCount = 0;
  /** The newest resourceVersion this watch has told its client about. */
  private seenRv: number;

  constructor(
    private readonly res: ServerResponse,
    readonly options: WatchConnectionOptions,
    private readonly store: ObjectStore,
    private readonly onClose: (c: WatchConnection) => void,
  ) {
    this.eventsLeft = options.maxEvents ?? Infinity;
    this.seenRv = options.afterRv ?? store.resourceVersion;
    res.on('close', () => this.finish());
    if (options.timeoutMs !== undefined) this.timers.push(setTimeout(() => this.end(), options.timeoutMs));
    if (options.bookmarks && options.bookmarkIntervalMs > 0) {
      this.timers.push(setInterval(() => this.periodicBookmark(), options.bookmarkIntervalMs));
    }
  }

  get resourceId(): string {
    return this.options.filter.resourceId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private inScope(entry: StoredEntry): boolean {
    const ns = this.options.filter.namespace;
    return ns === undefined || entry.key.startsWith(`${ns}/`);
  }

  private render(entry: StoredEntry): string {
    return this.options.renderObject === undefined ? entry.json : this.options.renderObject(entry);
  }

  /**
   * Queues an event line, rendered now or (renderAsync) once its object is rendered; with the
   * default rendering, the line `shared` among the watches of one event when given.
   */
  private pushEvent(type: string, entry: StoredEntry, shared?: SharedEventLines): void {
    const async = this.options.renderAsync;
    if (async === undefined) {
      if (shared !== undefined && this.options.renderObject === undefined) this.push(shared.line(type));
      else this.push(`{"type":"${type}","object":${this.render(entry)}}\n`);
      return;
    }
    if (this.closed) return;
    if (this.pending.length >= async.maxPending) {
      // Cannot keep up: end the stream after what is rendered (the client watches again from there).
      this.pending = [];
      this.end();
      return;
    }
    const slot: PendingLine = { line: undefined };
    this.pending.push(slot);
    async.render(entry).then(
      (object) => {
        slot.line = `{"type":"${type}","object":${object}}\n`;
        this.drainPending();
      },
      (err: unknown) => {
        const status = (err as { status?: Status } | null)?.status;
        const failed: PendingLine = { line: `{"type":"ERROR","object":${JSON.stringify(status ?? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: String(err), code: 500 })}}\n`, ends: true };
        const at = this.pending.indexOf(slot);
        if (at >= 0) this.pending.splice(at, this.pending.length - at, failed);
        this.drainPending();
      },
    );
  }

  /** Moves the rendered lines at the head of `pending` to the write queue, in order. */
  private drainPending(): void {
    while (this.pending.length > 0 && this.pending[0]?.line !== undefined) {
      const head = this.pending.shift() as PendingLine;
      if (head.ends === true) {
        this.pending = [];
        if (this.closed) return;
        this.queue.push(head.line ?? '');
        this.eventCount++;
        this.end();
        return;
      }
      this.push(head.line ?? '');
    }
  }

  /** Sends the current state as ADDED events. */
  sendInitial(entries: readonly StoredEntry[]): void {
    for (const e of entries) {
      if (this.inScope(e) && this.options.filter.matches(e.object)) this.pushEvent('ADDED', e);
    }
  }

  /**
   * Translates a store event through the filter: leaving the selector is DELETED, entering is
   * ADDED. `shared`: the event's lines, encoded once for all the watches it goes to.
   */
  deliver(event: StoreEvent, shared?: SharedEventLines): void {
    if (this.closed || !this.inScope(event.entry) || event.rv <= (this.options.afterRv ?? 0)) return;
    const m = this.options.filter.matches;
    let type: 'ADDED' | 'MODIFIED' | 'DELETED' | undefined;
    if (event.type === 'DELETED') {
      if (m(event.entry.object)) type = 'DELETED';
    } else {
      const now = m(event.entry.object);
      const before = event.prev !== undefined && m(event.prev.object);
      if (now && before) type = 'MODIFIED';
      else if (now) type = 'ADDED';
      else if (before) type = 'DELETED';
    }
    // Only an event the client gets brings it up to date: one the selector filtered out leaves
    // the resourceVersion ahead of it, so the next tick sends a BOOKMARK (as kube-apiserver).
    if (type === undefined) return;
    this.seenRv = Math.max(this.seenRv, event.rv);
    this.pushEvent(type, event.entry, shared);
  }

  /**
   * Timer tick: a BOOKMARK when the resourceVersion moved past what the client has seen (changes
   * it did not get, e.g. in other namespaces or resources). Like kube-apiserver's watch cache,
   * an idle server sends no bookmarks.
   */
  private periodicBookmark(): void {
    if (this.store.resourceVersion > this.seenRv) this.bookmark();
  }

  /** Sends a BOOKMARK at the current resourceVersion (optionally with annotations). */
  bookmark(annotations?: Readonly<Record<string, string>>): void {
    if (this.closed) return;
    this.seenRv = this.store.resourceVersion;
    const object = {
      kind: this.options.kind,
      apiVersion: this.options.apiVersion,
      metadata: { resourceVersion: String(this.store.resourceVersion), ...(annotations ? { annotations } : {}) },
    };
    this.pushOrdered(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  /** `push`, behind the events still being rendered. */
  private pushOrdered(line: string): void {
    if (this.pending.length > 0) this.pending.push({ line });
    else this.push(line);
  }

  /** Sends an ERROR event with the Status, then ends the stream (as kube-apiserver does). */
  error(status: Status): void {
    if (this.closed) return;
    if (this.pending.length > 0) {
      this.pending.push({ line: `{"type":"ERROR","object":${JSON.stringify(status)}}\n`, ends: true });
      return;
    }
    this.queue.push(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    this.eventCount++;
    this.end();
  }

  private push(line: string): void {
    if (this.closed) return;
    this.queue.push(line);
    this.eventCount++;
    if (--this.eventsLeft <= 0) {
      this.end();
      return;
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.flushScheduled || this.frozen || this.waitingDrain) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.closed || this.frozen || this.queue.length === 0) return;
    const chunk = joinShared(this.queue);
    this.queue = [];
    if (!this.res.write(chunk)) {
      this.waitingDrain = true;
      this.res.once('drain', () => {
        this.waitingDrain = false;
        this.schedule();
      });
    }
  }

  /** Stops writing (events queue up) without closing the connection. */
  freeze(): void {
    this.frozen = true;
  }

  /** Resumes writing, delivering what queued up while frozen. */
  unfreeze(): void {
    this.frozen = false;
    this.schedule();
  }

  /** Ends the stream cleanly (like a server-side timeout), after writing what is queued. */
  end(): void {
    if (this.closed) return;
    if (!this.frozen && this.queue.length > 0) this.res.write(this.queue.join(''));
    this.queue = [];
    this.finish();
    this.res.end();
  }

  /** Drops the TCP connection abruptly (no clean end of the chunked stream). */
  destroy(): void {
    if (this.closed) return;
    this.finish();
    this.res.socket?.destroy();
    this.res.destroy();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.onClose(this);
  }
}

/** Fans store events out to every open watch of the changed resource. */
export class WatchHub {
  private readonly byResource = new Map<string, Set<WatchConnection>>();
  private frozen = false;

  constructor(private readonly store: ObjectStore) {
    store.onEvent((e) => {
      const set = this.byResource.get(e.resourceId);
      if (set === undefined || set.size === 0) return;
      // One watch builds its line itself; several share it.
      const shared = set.size > 1 ? new SharedEventLines(e.entry) : undefined;
      for (const c of set) c.deliver(e, shared);
    });
  }

  /** Registers a new watch on `res`. */
  open(res: ServerResponse, options: WatchConnectionOptions): WatchConnection {
    const c = new WatchConnection(res, options, this.store, (x) => this.byResource.get(x.resourceId)?.delete(x));
    let set = this.byResource.get(c.resourceId);
    if (set === undefined) {
      set = new Set();
      this.byResource.set(c.resourceId, set);
    }
    set.add(c);
    if (this.frozen) c.freeze();
    return c;
  }

  /** Open watches, optionally of one resource id (`group/plural`). */
  connections(resourceId?: string): WatchConnection[] {
    if (resourceId !== undefined) return [...(this.byResource.get(resourceId) ?? [])];
    return [...this.byResource.values()].flatMap((s) => [...s]);
  }

  /** Freezes every open watch and the ones opened until `unfreeze()`. */
  freeze(): void {
    this.frozen = true;
    for (const c of this.connections()) c.freeze();
  }

  unfreeze(): void {
    this.frozen = false;
    for (const c of this.connections()) c.unfreeze();
  }

  get isFrozen(): boolean {
    return this.frozen;
  }
}
