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
 * - `rxkube`: rxkube's informer (see `rxkube-informer.ts`), default options;
 *   `rxkube-no-transform`: the same without the default transform (managedFields kept);
 *   `rxkube-metadata`: a metadata-only informer (PartialObjectMetadata lists and watches).
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
  stop(): Promise<void>;
}

export type ContenderName = 'floor' | 'floor-map' | 'server' | 'rxkube' | 'rxkube-no-transform' | 'rxkube-metadata' | 'floor-no-managed-fields' | 'client-node';

const PATH = '/api/v1/pods';
const PAGE = 500;

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

  constructor(
    private readonly url: string,
    private readonly mode: FloorMode,
  ) {}

  async start(onEvent: () => void): Promise<void> {
    let cont: string | undefined;
    let rv = '';
    do {
      const query = `?limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}&resourceVersion=0`;
      const body = await this.get(PATH + query);
      if (this.mode === 'raw') {
        // the continue token and resourceVersion sit in the list's metadata, before the items
        const head = body.toString('latin1', 0, 1024);
        cont = /"continue":"([^"]*)"/.exec(head)?.[1];
        rv = /"resourceVersion":"([^"]*)"/.exec(head)?.[1] ?? rv;
        this.count += PAGE;
      } else {
        const list = JSON.parse(body.toString('utf8')) as { metadata?: { continue?: string; resourceVersion?: string }; items?: KubeObject[] };
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
