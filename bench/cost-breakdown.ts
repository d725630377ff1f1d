/**
 * What costs what inside rxkube's informer, without HTTP: pre-serialised list pages and watch
 * lines of realistic pods are parsed and fed to a `sharedInformer` (from an in-process source) with
 * its features switched on one at a time; the parse-only and parse + `Map` rows are the floors.
 * The difference between this table and the HTTP benchmarks is the client and reflector layers.
 */
import { pathToFileURL } from 'node:url';
import { Subject } from 'rxjs';
import type { KubeObject } from '../src/api/kube-object.js';
import type { FreezeMode } from '../src/cache/index.js';
import { sharedInformer } from '../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../src/reflector/reflector-event.js';
import { realisticPod } from './support/pods.js';
import { cpuClock, fmt, forceGc, minorGc, median, row, summary } from './support/stats.js';

const OBJECTS = 10_000;
const EVENTS = 20_000;
const PAGE = 500;
const RUNS = 5;

interface Step {
  readonly label: string;
  /** undefined: no informer (parse only, or parse + Map when `map`). */
  readonly informer?: { transform: boolean; freeze: FreezeMode };
  readonly map?: boolean;
}

const STEPS: readonly Step[] = [
  { label: 'JSON.parse only (the floor)' },
  { label: 'JSON.parse + Map.set by namespace/name' },
  { label: 'informer: no transform, freeze none', informer: { transform: false, freeze: 'none' } },
  { label: 'informer: default transform (drop managedFields), freeze none', informer: { transform: true, freeze: 'none' } },
  { label: "informer: default transform, freeze 'shallow'", informer: { transform: true, freeze: 'shallow' } },
  { label: "informer: default transform, freeze 'deep' (the defaults)", informer: { transform: true, freeze: 'deep' } },
];

function texts(): { pages: string[]; lines: string[] } {
  const pages: string[] = [];
  for (let p = 0; p < OBJECTS / PAGE; p++) {
    const items = Array.from({ length: PAGE }, (_, j) => {
      const i = p * PAGE + j;
      const pod = realisticPod(i);
      return JSON.stringify({ ...pod, metadata: { ...pod.metadata, resourceVersion: String(1 + i) } });
    });
    pages.push(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"${OBJECTS}"},"items":[${items.join(',')}]}`);
  }
  const lines = Array.from({ length: EVENTS }, (_, e) => {
    const pod = realisticPod(e % OBJECTS, 1 + Math.floor(e / OBJECTS));
    return JSON.stringify({ type: 'MODIFIED', object: { ...pod, metadata: { ...pod.metadata, resourceVersion: String(1 + OBJECTS + e) } } });
  });
  return { pages, lines };
}

/** Keeps the parsed list alive through the settled measurement (an unused local may be collected early). */
let _retained: unknown;

const key = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

function once(step: Step, pages: readonly string[], lines: readonly string[]) {
  let delivered = 0;
  const map = new Map<string, KubeObject>();
  const source = new Subject<ReflectorEvent>();
  const informer =
    step.informer === undefined ? undefined : sharedInformer(source, { freeze: step.informer.freeze, ...(step.informer.transform ? {} : { transform: null }) });
  const sub = informer?.events$.subscribe(() => delivered++);
  forceGc(); // no step pays for the garbage of the one before
  let t = cpuClock();
  const items: KubeObject[] = [];
  for (const page of pages) {
    const list = JSON.parse(page) as { items: KubeObject[] };
    for (const item of list.items) {
      if (step.map === true) map.set(key(item), item);
      items.push(item);
    }
  }
  source.next({ type: 'replace', items, resourceVersion: String(OBJECTS) });
  const listMs = t();
  _retained = items;
  minorGc();
  minorGc();
  const listSettledMs = t();
  t = cpuClock();
  for (const line of lines) {
    const event = JSON.parse(line) as { type: string; object: KubeObject };
    if (step.map === true) map.set(key(event.object), event.object);
    source.next({ type: 'modified', object: event.object });
  }
  const watchMs = t();
  minorGc();
  minorGc();
  const watchSettledMs = t();
  if (informer !== undefined && delivered !== OBJECTS + EVENTS) throw new Error(`cost-breakdown: ${delivered} deliveries`);
  sub?.unsubscribe();
  _retained = undefined;
  return { listMs, listSettledMs, watchMs, watchSettledMs };
}

type Times = ReturnType<typeof once>;

export async function run(): Promise<string[]> {
  const { pages, lines } = texts();
  const steps = STEPS.map((s) => {
    if (s.informer === undefined && s.label.includes('Map')) return { ...s, map: true };
    return s;
  });
  for (const s of steps) once(s, pages, lines); // warm-up
  const res = new Map<Step, Times[]>();
  for (let r = 0; r < RUNS; r++) for (const s of steps) res.set(s, [...(res.get(s) ?? []), once(s, pages, lines)]);
  const per = (s: Step, f: keyof Times, n: number) => (res.get(s) ?? []).map((x) => (x[f] * 1000) / n);
  const first = steps[0] as Step;
  const baseList = median(per(first, 'listMs', OBJECTS));
  const baseWatch = median(per(first, 'watchMs', EVENTS));
  const baseListS = median(per(first, 'listSettledMs', OBJECTS));
  const baseWatchS = median(per(first, 'watchSettledMs', EVENTS));
  return [
    `In-process, no HTTP: ${fmt(OBJECTS / PAGE)} list pages of ${PAGE} pods (parsed, then one \`replace\`), then ${fmt(EVENTS)} MODIFIED watch lines`,
    `(parsed one by one, each fed as it is parsed); one subscriber with a no-op handler. µs per object / per event, median (min–max) of ${RUNS}`,
    'runs (CPU time of the process: user + system, all threads), and the ratio to JSON.parse alone. "Settled" adds two',
    'young-generation GCs at the end of the step, which promote what it keeps (the parsed list in every row; the watched',
    'objects in all rows but the first): JSON.parse alone stops its clock before that work, an informer pays it as it goes.',
    '',
    row(['what runs', 'list: µs/object', '× parse', 'settled', '× parse', 'watch: µs/event', '× parse', 'settled', '× parse']),
    row(['---', '---', '---', '---', '---', '---', '---', '---', '---']),
    ...steps.map((s) => {
      const x = (f: keyof Times, n: number, base: number) => {
        const v = per(s, f, n);
        return [summary(v, 2), `${(median(v) / base).toFixed(2)}×`];
      };
      return row([
        s.label,
        ...x('listMs', OBJECTS, baseList),
        ...x('listSettledMs', OBJECTS, baseListS),
        ...x('watchMs', EVENTS, baseWatch),
        ...x('watchSettledMs', EVENTS, baseWatchS),
      ]);
    }),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
