/**
 * Cache-core benchmark: deltas per second through `deltaFifo` + `indexStore` (100k keys, two
 * custom indexers plus the built-in namespace index) beside a bare `Map` doing the same writes,
 * and the cost of freezing cached objects compared with `JSON.parse` of the same objects.
 * `export run()` returns printable lines; `npx tsx bench/cache-core.ts` runs it directly.
 */
import { freeze } from 'immer';
import { from, type Observable } from 'rxjs';
import { pathToFileURL } from 'node:url';
import type { KubeObject, UnstructuredObject } from '../src/api/kube-object.js';
import { freezeObject, type FreezeMode } from '../src/cache/index.js';
import { type FifoInput } from '../src/cache/fifo-op.js';
import { Indexer } from '../src/cache/indexer.js';
import { metaNamespaceKey } from '../src/cache/keys.js';
import { deltaFifo } from '../src/cache/delta-fifo.js';
import { indexStore } from '../src/cache/index-store.js';

const KEYS = 100_000;
const RUNS = 5;

function smallPod(i: number, rv: number): UnstructuredObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % 100}`,
      uid: `uid-${i}`,
      resourceVersion: String(rv),
      labels: { app: `app-${i % 500}`, tier: 'web' },
    },
    spec: { nodeName: `node-${i % 200}` },
    status: { phase: 'Running' },
  };
}

const indexers = {
  node: (o: KubeObject) => [String(((o as UnstructuredObject).spec as { nodeName?: string } | undefined)?.nodeName ?? '')],
  app: (o: KubeObject) => [o.metadata?.labels?.app ?? ''],
};

/** The workload: one initial list of KEYS objects, then one update per key. 2 × KEYS deltas. */
function workload(): { list: KubeObject[]; updates: KubeObject[] } {
  const list: KubeObject[] = [];
  const updates: KubeObject[] = [];
  for (let i = 0; i < KEYS; i++) list.push(smallPod(i, 1));
  for (let i = 0; i < KEYS; i++) updates.push(smallPod(i, 2));
  return { list, updates };
}

function runPipeline(list: KubeObject[], updates: KubeObject[], mode: FreezeMode): { deltas: number; ms: number } {
  const indexer = new Indexer({ indexers, freeze: mode });
  const ops: FifoInput[] = [{ type: 'replace', items: list, resourceVersion: '1' }];
  for (const object of updates) ops.push({ type: 'update', object });
  let deltas = 0;
  const t0 = performance.now();
  const out: Observable<unknown> = from(ops).pipe(
    deltaFifo({ knownObjects: indexer, emitDeltaTypeReplaced: true }),
    indexStore(indexer),
  );
  out.subscribe(() => deltas++);
  const ms = performance.now() - t0;
  if (indexer.size !== list.length || deltas !== list.length + updates.length) throw new Error(`bench sanity check failed: ${indexer.size}, ${deltas}`);
  return { deltas, ms };
}

function runMap(list: KubeObject[], updates: KubeObject[]): { deltas: number; ms: number } {
  const map = new Map<string, KubeObject>();
  let deltas = 0;
  const t0 = performance.now();
  for (const o of list) {
    map.set(metaNamespaceKey(o), o);
    deltas++;
  }
  for (const o of updates) {
    map.set(metaNamespaceKey(o), o);
    deltas++;
  }
  const ms = performance.now() - t0;
  if (map.size !== list.length) throw new Error('bench sanity check failed (map)');
  return { deltas, ms };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
const rate = (deltas: number, ms: number) => (deltas / (ms / 1000)).toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A ~3 KB pod, as JSON. */
function bigPodJson(i: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % 50}`,
      uid: `0b6d7e7e-${String(i).padStart(4, '0')}-4c8b-9a8e-1c2d3e4f5a6b`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: `app-${i % 100}`, tier: 'backend', 'pod-template-hash': '5d4f8b9c7' },
      annotations: { 'kubernetes.io/psp': 'restricted', 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${i % 100}`, uid: 'owner-uid', controller: true, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"main"}': { '.': {}, 'f:image': {} } } } } }],
    },
    spec: {
      nodeName: `node-${i % 20}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      containers: [
        {
          name: 'main',
          image: 'registry.example.com/app:1.2.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          volumeMounts: [{ name: 'token', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
        },
      ],
      volumes: [{ name: 'token', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }] } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Running',
      podIP: '10.0.0.1',
      hostIP: '192.168.0.1',
      startTime: '2026-01-01T00:00:01Z',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: '2026-01-01T00:00:02Z' })),
      containerStatuses: [
        {
          name: 'main',
          ready: true,
          restartCount: 0,
          image: 'registry.example.com/app:1.2.3',
          imageID: 'registry.example.com/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
          containerID: 'containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
          state: { running: { startedAt: '2026-01-01T00:00:02Z' } },
        },
      ],
    },
  });
}

function freezeVsParse(): string[] {
  const N = 20_000;
  const texts = Array.from({ length: N }, (_, i) => bigPodJson(i));
  const avgBytes = texts.reduce((n, t) => n + t.length, 0) / N;
  const parse: number[] = [];
  const immerDeep: number[] = [];
  const deep: number[] = [];
  const shallow: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let t = performance.now();
    const a = texts.map((s) => JSON.parse(s) as KubeObject);
    parse.push(performance.now() - t);
    const b = texts.map((s) => JSON.parse(s) as KubeObject);
    const c = texts.map((s) => JSON.parse(s) as KubeObject);
    t = performance.now();
    for (const o of a) freeze(o, true);
    immerDeep.push(performance.now() - t);
    t = performance.now();
    for (const o of c) freezeObject(o, 'deep');
    deep.push(performance.now() - t);
    t = performance.now();
    for (const o of b) freezeObject(o, 'shallow');
    shallow.push(performance.now() - t);
  }
  const p = median(parse);
  const pct = (x: number) => `${((100 * x) / p).toFixed(0)} %`;
  return [
    `Freezing vs JSON.parse, ${N.toLocaleString('en')} pods of ~${(avgBytes / 1024).toFixed(1)} KB, median of ${RUNS} runs (ms, min–max):`,
    '',
    '| step | ms | share of parse |',
    '|---|---|---|',
    `| JSON.parse | ${p.toFixed(0)} (${spread(parse)}) | 100 % |`,
    `| immer freeze(obj, true) (for comparison) | ${median(immerDeep).toFixed(0)} (${spread(immerDeep)}) | ${pct(median(immerDeep))} |`,
    `| freezeObject 'deep' (own walk of plain objects and arrays) | ${median(deep).toFixed(0)} (${spread(deep)}) | ${pct(median(deep))} |`,
    `| freezeObject 'shallow' (object + direct children) | ${median(shallow).toFixed(1)} (${spread(shallow)}) | ${pct(median(shallow))} |`,
  ];
}

export async function run(): Promise<string[]> {
  const { list, updates } = workload();
  runPipeline(list.slice(0, 10_000), updates.slice(0, 10_000), 'shallow'); // warm-up
  runMap(list, updates);
  const lines: string[] = [
    `Workload: relist of ${KEYS.toLocaleString('en')} pods (Replaced deltas) then one update per key = ${(2 * KEYS).toLocaleString('en')} deltas;`,
    'indexers: node + app (custom) + namespace (built-in). Median of ' + RUNS + ' runs (ms, min–max).',
    '',
    '| path | ms | deltas/s | bare Map is × faster |',
    '|---|---|---|---|',
  ];
  const maps: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const fresh = workload();
    maps.push(runMap(fresh.list, fresh.updates).ms);
  }
  const mapMs = median(maps);
  lines.push(`| bare Map.set(key, obj) | ${mapMs.toFixed(0)} (${spread(maps)}) | ${rate(2 * KEYS, mapMs)} | 1 |`);
  for (const mode of ['none', 'shallow', 'deep'] as const) {
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const fresh = workload(); // fresh objects every run: frozen ones cannot be reused, and all paths start alike
      times.push(runPipeline(fresh.list, fresh.updates, mode).ms);
    }
    const ms = median(times);
    lines.push(`| deltaFifo + indexStore, freeze '${mode}' | ${ms.toFixed(0)} (${spread(times)}) | ${rate(2 * KEYS, ms)} | ${(ms / mapMs).toFixed(1)} |`);
  }
  lines.push('', ...freezeVsParse());
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
