/**
 * Starts one replica of the sharded ConfigMap controller (`../fixtures/sharded-replica.ts`) as a
 * child process and parses what it prints. Shared by the sharding e2e test (against
 * kube-apiserver) and `bench/sharded-throughput.ts` (against the embedded API server). The child
 * finds its cluster through KUBECONFIG (in `env`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('../fixtures/sharded-replica.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Lease timings and workload of a replica. */
export interface ReplicaOptions {
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly retryMs: number;
  /** The controller's concurrency; default 4. */
  readonly concurrency?: number;
  /** Awaited delay of every reconcile, in ms; default 10. */
  readonly costMs?: number;
  /** Environment of the child; default this process's. */
  readonly env?: NodeJS.ProcessEnv;
}

/** One line of a replica's output (times are the child's `Date.now()`). */
export type ReplicaLine =
  | { readonly type: 'START' | 'END'; readonly shard: string; readonly key: string; readonly at: number }
  | { readonly type: 'CACHE'; readonly shard: string; readonly size: number; readonly at: number }
  | { readonly type: 'LEADING'; readonly shard: string; readonly at: number }
  | { readonly type: 'ERROR'; readonly shard: string; readonly line: string };

/** Starts shard `shard` of ring `e2e` with its Leases in `namespace`; `onLine` sees every line it prints. */
export function startShardedReplica(shard: string, namespace: string, options: ReplicaOptions, onLine: (line: ReplicaLine) => void): ChildProcess {
  const args = [options.leaseMs, options.renewMs, options.retryMs, options.concurrency ?? 4, options.costMs ?? 10].map(String);
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', FIXTURE, shard, namespace, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: options.env ?? process.env,
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const [what, who = '', a = '', b = ''] = line.split(' ');
    if (what === 'START' || what === 'END') onLine({ type: what, shard: who, key: a, at: Number(b) });
    else if (what === 'CACHE') onLine({ type: 'CACHE', shard: who, size: Number(a), at: Number(b) });
    else if (what === 'LEADING') onLine({ type: 'LEADING', shard: who, at: Number(a) });
    else if (what === 'ERROR') onLine({ type: 'ERROR', shard: who, line });
  });
  return child;
}
