/**
 * Memory of a metadata-only informer: heap retained per cached pod after sync (full GCs,
 * `--expose-gc`), rxkube's pods informer with its default transform (drops managedFields) beside
 * a metadata-only informer (`InformerFactory.metadata`: PartialObjectMetadata lists and watches),
 * each run in a fresh process, measured as `memory.ts` does.
 */
import { pathToFileURL } from 'node:url';
import type { ContenderName } from './support/contenders.js';
import { retainedPerObject } from './support/retained-heap.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

const OBJECTS = Number(process.env.RXKUBE_BENCH_METADATA_OBJECTS ?? 10_000);
const RUNS = 3;
const CONTENDERS: ReadonlyArray<{ name: ContenderName; label: string }> = [
  { name: 'rxkube', label: 'rxkube informer, default transform (whole pods without managedFields)' },
  { name: 'rxkube-metadata', label: 'rxkube metadata-only informer (PartialObjectMetadata)' },
];

export async function run(): Promise<string[]> {
  const { perObject, bytes } = await retainedPerObject(CONTENDERS.map((c) => c.name), OBJECTS, RUNS);
  const med = (name: ContenderName) => median(perObject.get(name) ?? []);
  return [
    `${fmt(OBJECTS)} pods of ${fmt(bytes)} bytes of JSON; V8 heap retained after sync and full GCs per cached pod (bytes),`,
    `median (min–max) of ${RUNS} runs, each a fresh process; store, index and open watch included.`,
    '',
    row(['what is kept', 'bytes per pod', 'vs default transform']),
    row(['---', '---', '---']),
    ...CONTENDERS.map(({ name, label }) => row([label, summary(perObject.get(name) ?? []), ratio(med(name), med('rxkube'))])),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
