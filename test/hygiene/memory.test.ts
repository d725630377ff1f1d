import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Repeated start/stop cycles (embedded API server + manager with a health server + shared informer
 * with three subscribers + controller) do not grow the heap. Runs in a child process with `--expose-gc` so
 * heap sizes are measured after full collections. The bound is generous (no timing involved); the
 * negative control, which keeps each cycle's informer reachable, must exceed it.
 */

const script = fileURLToPath(new URL('./memory-cycles.ts', import.meta.url));

function run(args: string[]): Promise<{ warm: number; end: number; cycles: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', '--conditions=source', script, ...args], { timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${err.message}\n${stderr}`));
        return;
      }
      const line = stdout.trim().split('\n').at(-1) ?? '';
      resolve(JSON.parse(line) as { warm: number; end: number; cycles: number });
    });
  });
}

const MB = 1024 * 1024;
const BOUND = 4 * MB;

describe('hygiene: memory over repeated start/stop cycles', () => {
  it('120 cycles: heap after the last cycle is within 4 MB of the heap after warm-up; a leaking run is not', async () => {
    const [clean, leaking] = await Promise.all([run(['120']), run(['120', 'leak'])]);
    const growth = clean.end - clean.warm;
    const leaked = leaking.end - leaking.warm;
    console.log(`[hygiene] memory: ${clean.cycles} cycles, heap ${(clean.warm / MB).toFixed(1)} → ${(clean.end / MB).toFixed(1)} MB (${(growth / MB).toFixed(2)} MB); leaking control grew ${(leaked / MB).toFixed(2)} MB`);
    expect(growth).toBeLessThan(BOUND);
    expect(leaked).toBeGreaterThan(BOUND);
  }, 150_000);
});
