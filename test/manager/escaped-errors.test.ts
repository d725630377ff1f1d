/**
 * Issue 26, finding 10: an error escaping a reconcile asynchronously — thrown in a timer, or an
 * unhandled rejection — no longer kills the process at once. The manager catches it, logs it with
 * the controller, object and reconcile id, and stops gracefully (the bystander runnable is
 * stopped); `start()` rejects with an `UncaughtError` naming the controller and key. Run in a child
 * process, since the test runner watches its own process for such errors.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const program = join(import.meta.dirname, 'escaping-reconcile-main.ts');

function run(mode: string): Promise<{ code: number | null; lines: Record<string, unknown>[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', program, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out; stdout: ${out}; stderr: ${stderr}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, lines, stderr });
    });
  });
}

describe('errors escaping a reconcile asynchronously', () => {
  for (const [mode, origin, message] of [
    ['timer', 'uncaughtException', 'boom in a timer'],
    ['rejection', 'unhandledRejection', 'boom in a rejection'],
  ] as const) {
    it(`${mode}: are logged with controller and key and stop the manager gracefully`, async () => {
      const { code, lines, stderr } = await run(mode);
      expect(code, stderr).toBe(0);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'error', message: 'error escaped a reconcile, stopping the manager', controller: 'escaping', object: 'ns/a', origin, err: message }),
      );
      expect(lines).toContainEqual({ event: 'bystander stopped' });
      expect(lines).toContainEqual(expect.objectContaining({ event: 'start rejected', code: 'MANAGER_UNCAUGHT_ERROR', controller: 'escaping', key: 'ns/a', origin }));
      const stoppedAt = lines.findIndex((l) => l['message'] === 'manager stopped');
      expect(stoppedAt).toBeGreaterThan(lines.findIndex((l) => l['event'] === 'bystander stopped'));
    }, 40_000);
  }
});
