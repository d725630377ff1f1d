/**
 * Memory: heap retained per cached object after sync (full GCs, `--expose-gc`), for rxkube's
 * informer with its default transform (drops `metadata.managedFields`) and without a transform,
 * beside the parsed objects alone (the floor's items, with and without managedFields) and
 * @kubernetes/client-node's `makeInformer`. Each run is a fresh process; the retained heap is the
 * V8 heap used after sync minus the heap used before the informer was created (modules loaded).
 */
import { pathToFileURL } from 'node:url';
import type { ContenderName } from './support/contenders.js';
import { retainedPerObject } from './support/retained-heap.js';
import { fmt, median, ratio, row, summary } from './support/stats.js';

const OBJECTS = 10_000;
const RUNS = 3;
const CONTENDERS: ReadonlyArray<{ name: ContenderName; label: string }> = [
  { name: 'floor', label: 'parsed objects alone (JSON.parse of the list pages)' },
  { name: 'floor-no-managed-fields', label: 'parsed objects alone, copied without managedFields' },
  { name: 'rxkube-no-transform', label: 'rxkube informer, no transform' },
  { name: 'rxkube', label: 'rxkube informer, default transform (drops managedFields)' },
  { name: 'client-node', label: '@kubernetes/client-node makeInformer' },
];

export async function run(): Promise<string[]> {
  const { perObject, bytes } = await retainedPerObject(CONTENDERS.map((c) => c.name), OBJECTS, RUNS);
  const med = (name: ContenderName) => median(perObject.get(name) ?? []);
  return [
    `${fmt(OBJECTS)} pods of ${fmt(bytes)} bytes of JSON; V8 heap retained after sync and full GCs, divided by the number of`,
    `objects (bytes per object), median (min–max) of ${RUNS} runs, each a fresh process. The informers' figures include`,
    'everything they keep: the objects, the store and its namespace index, the open watch.',
    '',
    row(['what is kept', 'bytes per object', 'vs parsed objects alone']),
    row(['---', '---', '---']),
    ...CONTENDERS.map(({ name, label }) => row([label, summary(perObject.get(name) ?? []), ratio(med(name), med('floor'))])),
    '',
    row(['target: retained per object ≤ the parsed object\'s own', 'ratio']),
    row(['---', '---']),
    row(['rxkube, no transform / parsed objects', ratio(med('rxkube-no-transform'), med('floor'))]),
    row(['rxkube, default transform / parsed objects without managedFields', ratio(med('rxkube'), med('floor-no-managed-fields'))]),
    row(['rxkube, default transform / parsed objects', ratio(med('rxkube'), med('floor'))]),
    row(['client-node / rxkube (default)', ratio(med('client-node'), med('rxkube'))]),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of await run()) console.log(line);
}
