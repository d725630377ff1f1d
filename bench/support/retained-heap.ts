/**
 * Retained heap per cached object: each contender syncs `objects` pods from one embedded server in a
 * fresh worker process, `runs` times; the V8 heap retained after the sync (over the worker's
 * baseline, after full GCs) is divided by the number of objects.
 */
import type { ContenderName } from './contenders.js';
import { spawnWorker } from './rpc.js';

async function retainedOnce(name: ContenderName, url: string, objects: number): Promise<number> {
  const w = spawnWorker('bench/support/contender-process.ts');
  try {
    await w.call('baseline');
    await w.call('sync', { name, url, expect: objects });
    return (await w.call<number>('retained')) / objects;
  } finally {
    await w.kill();
  }
}

/** Bytes retained per object by each contender (one sample per run), and the JSON size of the seeded list. */
export async function retainedPerObject(
  contenders: readonly ContenderName[],
  objects: number,
  runs: number,
): Promise<{ readonly perObject: ReadonlyMap<ContenderName, number[]>; readonly bytes: number }> {
  const server = spawnWorker('bench/support/server-process.ts');
  const perObject = new Map<ContenderName, number[]>();
  let bytes = 0;
  try {
    const { url } = await server.call<{ url: string }>('start', {});
    ({ bytes } = await server.call<{ bytes: number }>('seed', { from: 0, to: objects }));
    for (let r = 0; r < runs; r++) {
      for (const name of contenders) perObject.set(name, [...(perObject.get(name) ?? []), await retainedOnce(name, url, objects)]);
    }
  } finally {
    await server.call('close').catch(() => undefined);
    await server.kill();
  }
  return { perObject, bytes };
}
