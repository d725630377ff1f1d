/**
 * Plumbing shared by the e2e tests: the real kube-apiserver that .ci/run starts (KUBECONFIG,
 * RXKUBE_E2E_DIR = start.sh's folder, RXKUBE_E2E_SHARED = the folder holding kube-apiserver/),
 * restarting it, compacting its etcd, and retrying writes through restart windows.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isNotFound } from '../../../src/client/api-error.js';
import type { ReflectorStatus } from '../../../src/reflector/reflector-status.js';

const run = promisify(execFile);

/** start.sh's folder (pids, apiserver.cmd, token). */
export const e2eDir = process.env.RXKUBE_E2E_DIR ?? '';
/** The folder holding `kube-apiserver/restart.sh`. */
export const e2eShared = process.env.RXKUBE_E2E_SHARED ?? '';
/** True when a real kube-apiserver is there to test against. */
export const hasCluster = !!process.env.KUBECONFIG && !!e2eDir && !!e2eShared;

export const sleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms));

/** Retries a write through restart windows and conflicts until `deadline`; gives up silently on NotFound. */
export async function persist(write: () => Promise<unknown>, deadline = Date.now() + 60_000): Promise<void> {
  for (;;) {
    try {
      await write();
      return;
    } catch (err) {
      if (isNotFound(err)) return;
      if (Date.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

/**
 * Restarts kube-apiserver alone (etcd and the data stay), down for `secondsDown` (or
 * RXKUBE_E2E_RESTART_DOWN seconds, to rehearse the slow restarts of a loaded machine), and waits
 * for /readyz.
 */
export async function restartApiServer(secondsDown: number): Promise<void> {
  const down = process.env.RXKUBE_E2E_RESTART_DOWN ?? String(secondsDown);
  await run('bash', [join(e2eShared, 'kube-apiserver', 'restart.sh'), e2eDir, down], { timeout: 120_000 });
}

/** etcd's client URL from the kube-apiserver command line start.sh wrote. */
export function etcdUrl(): string {
  const cmd = readFileSync(join(e2eDir, 'apiserver.cmd'), 'utf8');
  const m = /--etcd-servers="?([^"\s]+)"?/.exec(cmd);
  if (!m?.[1]) throw new Error('no --etcd-servers in apiserver.cmd');
  return m[1];
}

/** Compacts etcd at its current revision (physical), through etcd's JSON gateway; returns the revision. */
export async function compactEtcd(): Promise<number> {
  const url = etcdUrl();
  const range = (await (
    await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('/').toString('base64') }) })
  ).json()) as { header: { revision: string } };
  const revision = Number(range.header.revision);
  const res = await fetch(`${url}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) });
  if (!res.ok) throw new Error(`etcd compaction failed: ${res.status} ${await res.text()}`);
  return revision;
}

/** Polls `problems()` until it returns none; throws with the last few problems after `timeoutMs`. */
export async function convergeWithin(timeoutMs: number, problems: () => Promise<readonly string[]>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await problems();
    if (found.length === 0) return;
    if (Date.now() > deadline) throw new Error(`not converged: ${found.slice(0, 5).join('; ')}`);
    await sleep(250);
  }
}

/**
 * A timeline of reflector status changes (the `status` option of `listWatch`), to print when a
 * test does not converge: what the informers were doing when they should have seen the writes.
 */
export function statusTimeline(
  /** Called on every `listed`; what it resolves to is added to the timeline (e.g. what a second client lists then). */
  onListed?: () => Promise<string>,
): { readonly status: { next(s: ReflectorStatus): void }; print(): string } {
  const t0 = Date.now();
  const lines: string[] = [];
  const add = (line: string): void => {
    lines.push(`+${Date.now() - t0}ms ${line}`);
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  return {
    status: {
      next(s) {
        const detail = s.type === 'error' ? `${(s.error as Error)?.name ?? 'error'}: ${(s.error as Error)?.message ?? String(s.error)} → ${s.action}` : JSON.stringify(s);
        add(s.type === 'error' ? detail : detail.slice(0, 160));
        if (s.type === 'listed' && onListed !== undefined) onListed().then((text) => add(`  (meanwhile: ${text})`), (err: unknown) => add(`  (meanwhile: ${String(err)})`));
      },
    },
    print: () => lines.join('\n'),
  };
}
