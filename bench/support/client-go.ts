/**
 * The client-go contender: `bench/client-go/main.go` (a pods SharedIndexInformer, see there),
 * built at bench time from the client-go vendored in Debian's `kubernetes` source package
 * (Kubernetes 1.20.2, the source the shared kube-apiserver scripts build from) with the Go
 * toolchain on PATH, into a cache folder. Nothing of client-go, and no binary, is kept in the
 * repository.
 *
 * - Cache: `RXKUBE_CACHE`, else `$XDG_CACHE_HOME/rxkube`, else `~/.cache/rxkube`.
 * - Source tree: `RXKUBE_KUBE_SRC`, else the first `<cache>/kubernetes-src/kubernetes-*` holding
 *   client-go; when there is none, `apt-get source -d kubernetes` is tried there (needs deb-src
 *   entries, which the kube-apiserver build adds).
 * - As the kube-apiserver build does, the vendored `modern-go/reflect2` is replaced by Debian's
 *   (`golang-github-modern-go-reflect2-dev`): the vendored one crashes under Go 1.18 and later.
 *
 * `clientGoBinary()` resolves with the binary's path, or with the reason the contender is skipped.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile, cp } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAIN_GO = fileURLToPath(new URL('../client-go/main.go', import.meta.url));
const DEBIAN_REFLECT2 = '/usr/share/gocode/src/github.com/modern-go/reflect2';
const PACKAGE = 'cmd/rxkube-bench-informer';

/** The built contender, or why there is none. */
export type ClientGoBinary = { readonly path: string; readonly goVersion: string } | { readonly skip: string };

/** The benchmarks' cache folder: `RXKUBE_CACHE`, else `$XDG_CACHE_HOME/rxkube`, else `~/.cache/rxkube`. */
export function cacheDir(): string {
  if (process.env.RXKUBE_CACHE) return process.env.RXKUBE_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(os.homedir(), '.cache'), 'rxkube');
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function findSource(cache: string, log: (line: string) => void): Promise<string | undefined> {
  if (process.env.RXKUBE_KUBE_SRC) return process.env.RXKUBE_KUBE_SRC;
  const parent = join(cache, 'kubernetes-src');
  const look = async (): Promise<string | undefined> => {
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.startsWith('kubernetes-')).sort()) {
      const dir = join(parent, name);
      if (await exists(join(dir, 'staging/src/k8s.io/client-go/tools/cache'))) return dir;
    }
    return undefined;
  };
  const found = await look();
  if (found !== undefined) return found;
  log('client-go contender: fetching the Debian kubernetes source package (about 35 MB, once)');
  await mkdir(parent, { recursive: true });
  try {
    await run('apt-get', ['source', '-d', '-qq', 'kubernetes'], { cwd: parent, timeout: 600_000 });
    const tarball = (await readdir(parent)).find((n) => /^kubernetes_.*\.orig\.tar\.gz$/.test(n));
    if (tarball === undefined) return undefined;
    await run('tar', ['xzf', tarball], { cwd: parent, timeout: 600_000 });
  } catch {
    return undefined;
  }
  return look();
}

/** Swaps in Debian's reflect2 and lays out the GOPATH, once per source tree. */
async function prepare(src: string): Promise<string | undefined> {
  const marker = join(src, '.rxkube-bench-prepared');
  if (await exists(marker)) return undefined;
  if (!(await exists(DEBIAN_REFLECT2))) {
    return `Debian's reflect2 is missing (${DEBIAN_REFLECT2}; apt-get install golang-github-modern-go-reflect2-dev)`;
  }
  const vendored = join(src, 'vendor/github.com/modern-go/reflect2');
  await rm(vendored, { recursive: true, force: true });
  await cp(DEBIAN_REFLECT2, vendored, { recursive: true });
  await mkdir(join(src, '.go/src/k8s.io'), { recursive: true });
  const link = join(src, '.go/src/k8s.io/kubernetes');
  if (!(await exists(link))) await symlink('../../..', link);
  await writeFile(marker, 'reflect2 replaced, GOPATH laid out\n');
  return undefined;
}

/** Builds (or reuses) the client-go contender. */
export async function clientGoBinary(log: (line: string) => void = console.log): Promise<ClientGoBinary> {
  let goVersion: string;
  try {
    goVersion = (await run('go', ['version'], { timeout: 30_000 })).stdout.trim();
  } catch {
    return { skip: 'no Go toolchain (`go` is not on PATH)' };
  }
  const cache = cacheDir();
  const src = await findSource(cache, log);
  if (src === undefined) return { skip: `no kubernetes source tree (set RXKUBE_KUBE_SRC, or put one in ${join(cache, 'kubernetes-src')})` };
  const problem = await prepare(src);
  if (problem !== undefined) return { skip: problem };
  const main = await readFile(MAIN_GO);
  const key = createHash('sha256').update(main).update(goVersion).update(src).digest('hex').slice(0, 16);
  const binDir = join(cache, 'client-go-bench');
  const binary = join(binDir, `informer-${key}`);
  if (await exists(binary)) return { path: binary, goVersion };
  log(`client-go contender: building ${PACKAGE} with ${goVersion} (a few minutes, once)`);
  await mkdir(join(src, PACKAGE), { recursive: true });
  await copyFile(MAIN_GO, join(src, PACKAGE, 'main.go'));
  await mkdir(binDir, { recursive: true });
  const tmp = `${binary}.tmp`;
  try {
    await run('go', ['build', '-o', tmp, `k8s.io/kubernetes/${PACKAGE}`], {
      cwd: join(src, '.go/src/k8s.io/kubernetes'),
      env: { ...process.env, GOPATH: join(src, '.go'), GO111MODULE: 'off', CGO_ENABLED: '0', GOFLAGS: '' },
      timeout: 1_800_000,
      maxBuffer: 16 * 2 ** 20,
    });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? String(err);
    return { skip: `go build failed: ${stderr.trim().split('\n').slice(-3).join(' | ')}` };
  }
  await rename(tmp, binary);
  return { path: binary, goVersion };
}

/** One client-go sync against `url`: the binary's JSON line. */
export async function clientGoSync(binary: string, url: string, expect: number): Promise<{ ms: number; cpuMs: number; cpuSettledMs: number; peakRssGrowth: number; size: number }> {
  const { stdout } = await run(binary, [url, String(expect)], { timeout: 600_000, env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '' } });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { ms: number; cpuMs: number; cpuSettledMs: number; peakRssGrowth: number; size: number };
}
