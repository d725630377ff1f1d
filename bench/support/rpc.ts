/**
 * Child processes for the benchmarks, so that each contender has a heap of its own and the API
 * server runs on its own event loop: `spawnWorker(script)` starts `script` with the same Node
 * binary (TypeScript through tsx, `--conditions=source`, `--expose-gc`) and returns a handle whose
 * `call(command, args)` is answered by the handler the child registered with `serveCommands`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Request {
  readonly id: number;
  readonly command: string;
  readonly args: unknown;
}
interface Response {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

/** A running child process answering commands. */
export interface Worker {
  call<R>(command: string, args?: unknown): Promise<R>;
  /** Kills the child (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  readonly pid: number | undefined;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Starts `script` (a path relative to the repository root) as a worker. */
export function spawnWorker(script: string, extraNodeArgs: readonly string[] = []): Worker {
  const child: ChildProcess = fork(script, [], {
    cwd: ROOT,
    execPath: process.execPath,
    execArgv: ['--import', 'tsx', '--conditions=source', '--expose-gc', '--max-old-space-size=8192', ...extraNodeArgs],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const p of pending.values()) p.reject(new Error(`${script} exited (${code ?? signal})`));
      pending.clear();
      resolve();
    });
  });
  child.on('message', (msg: Response) => {
    const p = pending.get(msg.id);
    if (p === undefined) return;
    pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new Error(`${script}: ${msg.error}`));
    else p.resolve(msg.result);
  });
  return {
    pid: child.pid,
    call<R>(command: string, args?: unknown): Promise<R> {
      if (exited) return Promise.reject(new Error(`${script} has exited`));
      const id = next++;
      return new Promise<R>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, command, args } satisfies Request);
      });
    },
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
  };
}

/** In a child: answers the parent's `call`s with `handlers` (a rejected promise becomes an error). */
export function serveCommands(handlers: Record<string, (args: never) => unknown>): void {
  process.on('message', (msg: Request) => {
    const handler = handlers[msg.command];
    const reply = (r: Response): void => {
      process.send?.(r);
    };
    if (handler === undefined) {
      reply({ id: msg.id, error: `unknown command ${msg.command}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(msg.args as never))
      .then(
        (result) => reply({ id: msg.id, result }),
        (err: unknown) => reply({ id: msg.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
      );
  });
  // The parent going away ends the child.
  process.on('disconnect', () => process.exit(0));
}
