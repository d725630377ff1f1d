/**
 * The real kube-apiserver a differential test compares the embedded server with: the one the e2e
 * runner started (KUBECONFIG, RXKUBE_E2E_DIR), or, outside CI, one started here with
 * ../shared/kube-apiserver/start.sh (stopped by `stop`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const sharedDir = process.env['RXKUBE_E2E_SHARED'] ?? join(repoRoot, '..', 'shared');

/** Where the real server is and how to call it. */
export interface RealKubeApiServer {
  readonly server: string;
  readonly token: string | undefined;
  /** The CA (PEM) from the kubeconfig's `certificate-authority-data` or file. */
  readonly ca: string | undefined;
  readonly kubeconfig: string;
  /** start.sh's folder (restart.sh and the etcd address need it), when known. */
  readonly dir: string | undefined;
  /** Stops the server started here; undefined for the runner's. */
  readonly stop: (() => void) | undefined;
}

/**
 * The runner's kube-apiserver, or a new one (outside CI, when start.sh is there) named after
 * `prefix`; undefined when there is none. `needDir`: start one when the runner's folder is not known.
 */
export function realKubeApiServer(prefix: string, { needDir = false }: { needDir?: boolean } = {}): RealKubeApiServer | undefined {
  let kubeconfig = process.env['KUBECONFIG'];
  let dir = process.env['RXKUBE_E2E_DIR'];
  let stop: (() => void) | undefined;
  const missing = kubeconfig === undefined || kubeconfig === '' || (needDir && (dir === undefined || dir === ''));
  if (missing && !process.env['CI'] && existsSync(join(sharedDir, 'kube-apiserver', 'start.sh'))) {
    const started = mkdtempSync(join(tmpdir(), `${prefix}-`));
    execFileSync('bash', [join(sharedDir, 'kube-apiserver', 'start.sh'), started], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 900_000 });
    dir = started;
    kubeconfig = join(started, 'kubeconfig');
    stop = () => execFileSync('bash', [join(sharedDir, 'kube-apiserver', 'stop.sh'), started], { stdio: 'ignore' });
  }
  if (kubeconfig === undefined || kubeconfig === '') return undefined;
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) return undefined;
  const ca = cluster.caData !== undefined ? Buffer.from(cluster.caData, 'base64').toString() : cluster.caFile !== undefined ? readFileSync(cluster.caFile, 'utf8') : undefined;
  return { server: cluster.server, token: kc.getCurrentUser()?.token, ca, kubeconfig, dir: dir === '' ? undefined : dir, stop };
}

/**
 * Says loudly that `comparison` is skipped for want of a real server; in CI (where one is always
 * started) that is an error instead.
 */
export function noRealKubeApiServer(comparison: string): void {
  const msg = `\n!!! No real kube-apiserver (KUBECONFIG unset, ../shared/kube-apiserver/start.sh missing): the ${comparison} comparison is SKIPPED. !!!\n`;
  if (process.env['CI']) throw new Error(msg);
  console.warn(msg);
}
