/**
 * The three contenders of the informer benchmarks, behind one interface: `start(onEvent)` lists
 * and watches `/api/v1/pods` on the server and resolves when the cache is synced; `onEvent` is
 * called once per event delivered to the subscriber's handler (initial adds included).
 *
 * - `floor`: the same HTTP requests as rxkube's reflector (paged list, `limit=500`, then a watch),
 *   bodies read and `JSON.parse`d, nothing else (the parsed items are kept in an array, as any
 *   cache has to keep them; watch events are parsed and counted).
 * - `floor-map`: the floor plus the smallest possible cache: a `Map` by namespace/name, updated by
 *   every watch event (so the objects are retained, as by any informer).
 * - `floor-no-managed-fields`: the floor, each item copied without `metadata.managedFields`.
 * - `server`: the same requests, bodies read but not parsed (list pages: only the continue token
 *   is picked out; watch: newlines counted). Its rate is what the server can deliver.
 * - `server-unpaged`, `floor-unpaged`: the same with one request for the whole list (a `limit`
 *   larger than the list); the floor also reports the time spent in `JSON.parse` ("client
 *   parses").
 * - `rxkube-sequential`: rxkube's informer with pages fetched one after another
 *   (`pagesInFlight: 1`); `rxkube-unpaged`: with one page for the whole list (parsed at its end);
 *   `rxkube-unpaged-items`: the same, each item parsed as soon as it has arrived.
 * - `rxkube`: rxkube's informer (see `rxkube-informer.ts`), default options;
 *   `rxkube-no-transform`: the same without the default transform (managedFields kept);
 *   `rxkube-metadata`: a metadata-only informer (PartialObjectMetadata lists and watches);
 *   `rxkube-fetch`: the informer over the `fetch` transport (`fetchClient`, the browser's), listing;
 *   `rxkube-streaming`: the informer starting with a streaming list (`sendInitialEvents`);
 *   `rxkube-paged`: the informer with `streamingList: false` (paged list, then watch). The page
 *   variants (`rxkube-sequential`, `rxkube-unpaged`…) list and watch too.
 * - `floor-pipelined`, `floor-deferred`, `floor-batch20`, `floor-batch50` (side experiments behind the
 *   findings in BENCHMARKS.md, not in the default runs): the floor with pipelined page requests,
 *   parsing each page on arrival, all pages once at the end, or every 20 / 50 pages.
 * - `client-node`: @kubernetes/client-node's `makeInformer` with `listPodForAllNamespaces`, as
 *   its documentation shows (one unpaged list, typed deserialisation).
 */
import http from 'node:http';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import type { KubeObject } from '../../src/api/kube-object.js';
import { dropManagedFields } from '../../src/informer/drop-managed-fields.js';
import { rxkubeInformer, type InformerVariant } from './rxkube-informer.js';

/** One way of keeping a synced cache of pods. */
export interface Contender {
  /** Lists, starts watching, resolves when synced. */
  start(onEvent: () => void): Promise<void>;
  /** Objects held (for sanity checks). */
  size(): number;
  /** Milliseconds spent in `JSON.parse` of list bodies (floor contenders only). */
  parseMs?(): number;
  stop(): Promise<void>;
}

export type ContenderName =
  | 'floor'
  | 'floor-map'
  | 'server'
  | 'rxkube'
  | 'rxkube-no-transform'
  | 'rxkube-sequential'
  | 'rxkube-per-page'
  | 'rxkube-paged-items'
  | 'rxkube-at-end'
  | 'floor-no-managed-fields'
  | 'client-node'
  | 'server-unpaged'
  | 'floor-unpaged'
  | 'rxkube-unpaged'
  | 'rxkube-unpaged-items'
  | 'floor-pipelined'
  | 'floor-deferred'
  | 'floor-batch20'
  | 'floor-batch50'
  | 'rxkube-metadata'
  | 'rxkube-fetch'
  | 'rxkube-streaming'
  | 'rxkube-paged';

const PATH = '/api/v1/pods';
const PAGE = 500;
/** A page size larger than any list of the benchmarks: one page. */
const ONE_PAGE = 10_000_000;

/** The contender named `name`, against the server at `url`. */
export function makeContender(name: ContenderName, url: string): Contender {
  switch (name) {
    case 'floor':
      return new FloorContender(url, 'parse');
    case 'floor-map':
      return new FloorContender(url, 'parse-map');
    case 'floor-no-managed-fields':
      return new FloorContender(url, 'parse-drop');
    case 'server':
      return new FloorContender(url, 'raw');
    case 'rxkube':
      return rxkubeContender(url, 'default');
    case 'rxkube-no-transform':
      return rxkubeContender(url, 'no-transform');
    case 'rxkube-metadata':
      return rxkubeContender(url, 'metadata');
    case 'rxkube-fetch':
      return rxkubeContender(url, 'fetch');
    case 'rxkube-sequential':
      return rxkubeContender(url, 'sequential');
    case 'rxkube-streaming':
      return rxkubeContender(url, 'streaming');
    case 'rxkube-paged':
      return rxkubeContender(url, 'paged');
    case 'rxkube-per-page':
      return rxkubeContender(url, 'per-page');
    case 'rxkube-paged-items':
      return rxkubeContender(url, 'paged-items');
    case 'rxkube-at-end':
      return rxkubeContender(url, 'at-end');
    case 'rxkube-unpaged':
      return rxkubeContender(url, 'unpaged');
    case 'rxkube-unpaged-items':
      return rxkubeContender(url, 'unpaged-items');
    case 'server-unpaged':
      return new FloorContender(url, 'raw', false);
    case 'floor-unpaged':
      return new FloorContender(url, 'parse', false);
    case 'floor-pipelined':
      return new PipelinedFloor(url, false);
    case 'floor-deferred':
      return new PipelinedFloor(url, true);
    case 'floor-batch20':
      return new PipelinedFloor(url, true, 20);
    case 'floor-batch50':
      return new PipelinedFloor(url, true, 50);
    case 'client-node':
      return clientNodeContender(url);
  }
}

/** A KubeConfig for the benchmark server (plain HTTP, no credentials). */
export function benchKubeConfig(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'bench', server: url, skipTLSVerify: true }],
    users: [{ name: 'bench' }],
    contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
    currentContext: 'bench',
  });
  return kc;
}

type FloorMode = 'parse' | 'parse-map' | 'parse-drop' | 'raw';

class FloorContender implements Contender {
  private readonly agent = new http.Agent({ keepAlive: true });
  private items: KubeObject[] = [];
  /** 'parse-map': the smallest possible cache, objects by namespace/name, kept current by the watch. */
  private readonly map = new Map<string, KubeObject>();
  private count = 0;
  private watchReq: http.ClientRequest | undefined;
  private parsing = 0;

  constructor(
    private readonly url: string,
    private readonly mode: FloorMode,
    /** false: one request for the whole list (`limit` larger than the list), as an unpaged list. */
    private readonly paged = true,
  ) {}

  parseMs(): number {
    return this.parsing;
  }

  async start(onEvent: () => void): Promise<void> {
    let cont: string | undefined;
    let rv = '';
    do {
      const query = `?limit=${this.paged ? PAGE : ONE_PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}&resourceVersion=0`;
      const body = await this.get(PATH + query);
      if (this.mode === 'raw') {
        // the continue token and resourceVersion sit in the list's metadata, before the items
        const head = body.toString('latin1', 0, 1024);
        cont = /"continue":"([^"]*)"/.exec(head)?.[1];
        rv = /"resourceVersion":"([^"]*)"/.exec(head)?.[1] ?? rv;
        this.count += this.paged ? PAGE : 0;
      } else {
        const t0 = performance.now();
        const list = JSON.parse(body.toString('utf8')) as { metadata?: { continue?: string; resourceVersion?: string }; items?: KubeObject[] };
        this.parsing += performance.now() - t0;
        cont = list.metadata?.continue || undefined;
        rv = list.metadata?.resourceVersion ?? rv;
        for (const item of list.items ?? []) {
          // as rxkube's default transform does it (a copy without the field; `delete` would turn
          // the metadata object into a slower, larger dictionary-mode object)
          if (this.mode === 'parse-map') this.map.set(mapKey(item), item);
          else this.items.push(this.mode === 'parse-drop' ? dropManagedFields(item) : item);
          onEvent();
        }
      }
    } while (cont !== undefined);
    this.watch(rv, onEvent);
  }

  size(): number {
    if (this.mode === 'parse-map') return this.map.size;
    return this.mode === 'raw' ? this.count : this.items.length;
  }

  async stop(): Promise<void> {
    this.watchReq?.destroy();
    this.agent.destroy();
    this.items = [];
  }

  private get(path: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const req = http.get(this.url + path, { agent: this.agent, headers: { Accept: 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  }

  private watch(rv: string, onEvent: () => void): void {
    const path = `${PATH}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=3600`;
    const raw = this.mode === 'raw';
    const map = this.mode === 'parse-map' ? this.map : undefined;
    this.watchReq = http.get(this.url + path, { agent: this.agent }, (res) => {
      let tail = '';
      res.on('data', (chunk: Buffer) => {
        if (raw) {
          let at = chunk.indexOf(10);
          while (at >= 0) {
            onEvent();
            at = chunk.indexOf(10, at + 1);
          }
          return;
        }
        const text = tail + chunk.toString('utf8');
        let start = 0;
        let nl = text.indexOf('\n');
        while (nl >= 0) {
          const event = JSON.parse(text.slice(start, nl)) as { type: string; object: KubeObject };
          if (event.type !== 'BOOKMARK') {
            if (map !== undefined) {
              if (event.type === 'DELETED') map.delete(mapKey(event.object));
              else map.set(mapKey(event.object), event.object);
            }
            onEvent();
          }
          start = nl + 1;
          nl = text.indexOf('\n', start);
        }
        tail = text.slice(start);
      });
    });
    this.watchReq.on('error', () => undefined);
  }
}

function mapKey(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

function rxkubeContender(url: string, variant: InformerVariant): Contender {
  const informer = rxkubeInformer(benchKubeConfig(url), variant);
  return {
    start: (onEvent) => informer.start(onEvent),
    size: () => informer.size(),
    stop: () => informer.stop(),
  };
}

function clientNodeContender(url: string): Contender {
  const kc = benchKubeConfig(url);
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer(kc, PATH, () => api.listPodForAllNamespaces());
  return {
    async start(onEvent) {
      informer.on('add', onEvent);
      informer.on('update', onEvent);
      informer.on('delete', onEvent);
      await informer.start();
    },
    size: () => informer.list().length,
    stop: () => informer.stop(),
  };
}

/** Experiment: pipelined pages (next page requested when this one's continue token is read); deferred: one parse at the end. */
class PipelinedFloor implements Contender {
  private readonly agent = new http.Agent({ keepAlive: true });
  private items: KubeObject[] = [];
  constructor(
    private readonly url: string,
    private readonly deferred: boolean,
    private readonly batch = Infinity,
  ) {}

  async start(onEvent: () => void): Promise<void> {
    const bodies: Array<Promise<Buffer>> = [];
    const request = (cont: string | undefined): void => {
      const query = `?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}&resourceVersion=0`;
      bodies.push(
        new Promise<Buffer>((resolve, reject) => {
          const req = http.get(this.url + PATH + query, { agent: this.agent, headers: { Accept: 'application/json' } }, (res) => {
            const chunks: Buffer[] = [];
            let headDone = false;
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              if (!headDone) {
                const head = Buffer.concat(chunks).toString('latin1', 0, 2048);
                const at = head.indexOf('"items"');
                if (at >= 0) {
                  headDone = true;
                  const next = /"continue":"([^"]*)"/.exec(head.slice(0, at))?.[1];
                  if (next) request(next);
                }
              }
            });
            res.on('end', () => resolve(Buffer.concat(chunks)));
            res.on('error', reject);
          });
          req.on('error', reject);
        }),
      );
    };
    request(undefined);
    const parts: Buffer[] = [];
    for (let i = 0; i < bodies.length; i++) {
      const body = await (bodies[i] as Promise<Buffer>);
      if (this.deferred) {
        const at = body.indexOf('"items":[');
        const inner = body.subarray(at + 9, body.length - 2);
        if (inner.length > 0) parts.push(inner);
        if (parts.length >= this.batch) this.parseParts(parts.splice(0), onEvent);
      } else {
        const list = JSON.parse(body.toString('utf8')) as { items?: KubeObject[] };
        for (const item of list.items ?? []) {
          this.items.push(item);
          onEvent();
        }
      }
    }
    if (this.deferred) this.parseParts(parts, onEvent);
  }

  private parseParts(parts: Buffer[], onEvent: () => void): void {
    {
      const sep = Buffer.from(',');
      const all: Buffer[] = [Buffer.from('[')];
      parts.forEach((p, i) => {
        if (i > 0) all.push(sep);
        all.push(p);
      });
      all.push(Buffer.from(']'));
      const items = JSON.parse(Buffer.concat(all).toString('utf8')) as KubeObject[];
      for (const item of items) {
        this.items.push(item);
        onEvent();
      }
    }
  }

  size(): number {
    return this.items.length;
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    this.items = [];
  }
}
