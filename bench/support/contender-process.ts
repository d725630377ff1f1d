/**
 * One contender in a process of its own (see `rpc.ts`): `sync` starts it and measures the time
 * and the peak memory to synced; `arm`/`wait` count the next events delivered to its handler;
 * `retained` measures the heap it keeps after full garbage collections.
 */
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import v8 from 'node:v8';
import { type Contender, type ContenderName, makeContender } from './contenders.js';
import { serveCommands } from './rpc.js';

let contender: Contender | undefined;
let events = 0;
let target = Infinity;
let firstAt = 0;
let firstCpu = process.cpuUsage();
let result: WaitResult | undefined;
let done: ((r: WaitResult) => void) | undefined;

/** Wall-clock and CPU (user + system, all threads) milliseconds from the first counted event to the last. */
interface WaitResult {
  events: number;
  ms: number;
  cpuMs: number;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

function onEvent(): void {
  events++;
  if (events === 1) {
    firstAt = performance.now();
    firstCpu = process.cpuUsage();
  }
  if (events === target) {
    result = { events, ms: performance.now() - firstAt, cpuMs: cpuMs(firstCpu) };
    done?.(result);
    done = undefined;
  }
}

function fullGc(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) gc();
}

function minorGc(): void {
  const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc({ type: 'minor' });
}

let baselineHeap = 0;
let session: Session | undefined;
let profileName = '';

/** RXKUBE_BENCH_PROFILE=<dir>: writes a CPU profile of each measured window (sync, watch burst) there. */
async function profileStart(name: string): Promise<void> {
  if (!process.env.RXKUBE_BENCH_PROFILE) return;
  profileName = name;
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}

async function profileStop(): Promise<void> {
  if (session === undefined) return;
  const { profile } = await session.post('Profiler.stop');
  await writeFile(`${process.env.RXKUBE_BENCH_PROFILE}/${profileName}-${process.pid}-${Date.now()}.cpuprofile`, JSON.stringify(profile));
  session.disconnect();
  session = undefined;
}

serveCommands({
  /** Heap after GC before anything was started (modules loaded). */
  baseline() {
    fullGc();
    baselineHeap = v8.getHeapStatistics().used_heap_size;
    return baselineHeap;
  },
  async sync(args: { name: ContenderName; url: string; expect: number }) {
    const rss0 = process.memoryUsage.rss();
    await profileStart(`sync-${args.name}`);
    contender = makeContender(args.name, args.url);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await contender.start(onEvent);
    const ms = performance.now() - t0;
    const cpu = cpuMs(cpu0);
    // Settled: plus two young-generation GCs, which promote what the contender keeps. A contender
    // that stops its clock right after parsing leaves that work to whatever runs next.
    minorGc();
    minorGc();
    const cpuSettled = cpuMs(cpu0);
    await profileStop();
    const peakRss = process.resourceUsage().maxRSS * 1024;
    const size = contender.size();
    if (!args.name.startsWith('server') && size !== args.expect) throw new Error(`${args.name}: synced with ${size} objects, expected ${args.expect}`);
    return { ms, cpuMs: cpu, cpuSettledMs: cpuSettled, peakRssGrowth: peakRss - rss0, size, parseMs: contender.parseMs?.() };
  },
  /** Starts counting: `wait` resolves after `count` more events. */
  async arm(args: { count: number; name?: string }) {
    await profileStart(`watch-${args.name ?? 'contender'}`);
    events = 0;
    result = undefined;
    target = args.count;
    return null;
  },
  async wait() {
    const r = await new Promise<WaitResult>((resolve) => {
      if (result !== undefined) resolve(result);
      else done = resolve;
    });
    await profileStop();
    return r;
  },
  retained() {
    fullGc();
    return v8.getHeapStatistics().used_heap_size - baselineHeap;
  },
  async stop() {
    await contender?.stop();
    contender = undefined;
    return null;
  },
  /** Exits normally (so that `--cpu-prof` writes its profile). */
  exit() {
    setImmediate(() => process.exit(0));
    return null;
  },
});
