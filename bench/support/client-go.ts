/**
 * Builds client-go programs: `bench/client-go/main.go` (the benchmark's client-go contender, a
 * pods SharedIndexInformer) and `test/e2e/client-go/main.go` (the e2e tier's protobuf client,
 * test/e2e/client-go-protobuf.test.ts), each from the client-go vendored in Debian's `kubernetes`
 * source package (Kubernetes 1.20.2, the source the shared kube-apiserver scripts build from) with
 * the Go toolchain on PATH, into a cache folder. Nothing of client-go, and no binary, is kept in
 * the repository.
 *
 * - Cache: `RXKUBE_CACHE`, else `$XDG_CACHE_HOME/rxkube`, else `~/.cache/rxkube`.
 * - Source tree: `RXKUBE_KUBE_SRC`, else the first `<cache>/kubernetes-src/kubernetes-*` holding
 *   client-go; when there is none, `apt-get source -d kubernetes` is tried there (needs deb-src
 *   entries, which the kube-apiserver build adds).
 * - As the kube-apiserver build does, the vendored `modern-go/reflect2` is replaced by Debian's
 *   (`golang-github-modern-go-reflect2-dev`): the vendored one crashes under Go 1.18 and later.
 * - A binary is named by a hash of its `main.go`, the Go version and the source tree, so an edited
 *   `main.go` builds again; it is built in GOPATH mode with the vendored packages, from a package
 *   folder `cmd/<name>-<hash>-<pid>` of the source tree (concurrent builds do not meet), removed
 *   after the build.
 *
 * `buildClientGoProgram()` resolves with the binary's path, or with the reason there is none
 * (no Go, no source, a failed build); `clientGoBinary()` is the benchmark's contender.
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

/** A built client-go program, or why there is none (`buildFailed`: Go and the source are there, the build failed). */
export type ClientGoBinary = { readonly path: string; readonly goVersion: string } | { readonly skip: string; readonly buildFailed?: boolean };

/** The benchmarks' cache folder: `RXKUBE_CACHE`, else `$XDG_CACHE_HOME/rxkube`, else `~/.cache/rxkube`. */
export function cacheDir(): string {
  if (process.env.RXKUBE_CACHE) return process.env.RXKUBE_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(os.homedir(), '.cache'), 'rxkube');
}

/** Whether `path` exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether `dir` is a Kubernetes source tree holding client-go (a GOPATH build needs nothing else). */
function holdsClientGo(dir: string): Promise<boolean> {
  return exists(join(dir, 'staging/src/k8s.io/client-go/tools/cache'));
}

async function findSource(cache: string, log: (line: string) => void): Promise<string | undefined> {
  const given = process.env.RXKUBE_KUBE_SRC;
  if (given) return (await holdsClientGo(given)) ? given : undefined;
  const parent = join(cache, 'kubernetes-src');
  const look = async (): Promise<string | undefined> => {
    const names = await readdir(parent).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.startsWith('kubernetes-')).sort()) {
      const dir = join(parent, name);
      if (await holdsClientGo(dir)) return dir;
    }
    return undefined;
  };
  const found = await look();
  if (found !== undefined) return found;
  log('fetching the Debian kubernetes source package (about 35 MB, once)');
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

/** Which program {@link buildClientGoProgram} builds. */
export interface ClientGoProgram {
  /** The program's `main.go` (package main; imports client-go, apimachinery and api as vendored). */
  readonly mainGo: string;
  /** Package folder name under the source tree's `cmd/` and binary name prefix, e.g. `rxkube-bench-informer`. */
  readonly name: string;
  /** Cache subfolder holding the binaries, e.g. `client-go-bench`. */
  readonly binDir: string;
  /** What the log line calls it (default `name`). */
  readonly label?: string;
}

/** Builds (or reuses) a client-go program: the binary's path, or why there is none. */
export async function buildClientGoProgram(program: ClientGoProgram, log: (line: string) => void = console.log): Promise<ClientGoBinary> {
  const label = program.label ?? program.name;
  let goVersion: string;
  try {
    goVersion = (await run('go', ['version'], { timeout: 30_000 })).stdout.trim();
  } catch {
    return { skip: 'no Go toolchain (`go` is not on PATH)' };
  }
  const cache = cacheDir();
  const src = await findSource(cache, (line) => log(`${label}: ${line}`));
  if (src === undefined) {
    const where = process.env.RXKUBE_KUBE_SRC ? `RXKUBE_KUBE_SRC=${process.env.RXKUBE_KUBE_SRC} holds no client-go` : `none in ${join(cache, 'kubernetes-src')}, and apt-get source kubernetes did not fetch one`;
    return { skip: `no kubernetes source tree (${where}; set RXKUBE_KUBE_SRC to an unpacked kubernetes-1.20.2)` };
  }
  const problem = await prepare(src);
  if (problem !== undefined) return { skip: problem };
  const main = await readFile(program.mainGo);
  const key = createHash('sha256').update(main).update(goVersion).update(src).digest('hex').slice(0, 16);
  const binDir = join(cache, program.binDir);
  const binary = join(binDir, `${program.name}-${key}`);
  if (await exists(binary)) return { path: binary, goVersion };
  const pkg = `cmd/${program.name}-${key}-${process.pid}`;
  log(`${label}: building ${pkg} with ${goVersion} (a few minutes, once)`);
  await mkdir(join(src, pkg), { recursive: true });
  await copyFile(program.mainGo, join(src, pkg, 'main.go'));
  await mkdir(binDir, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  try {
    await run('go', ['build', '-o', tmp, `k8s.io/kubernetes/${pkg}`], {
      cwd: join(src, '.go/src/k8s.io/kubernetes'),
      env: { ...process.env, GOPATH: join(src, '.go'), GO111MODULE: 'off', CGO_ENABLED: '0', GOFLAGS: '' },
      timeout: 1_800_000,
      maxBuffer: 16 * 2 ** 20,
    });
  } catch (err) {
    await rm(tmp, { force: true });
    const stderr = (err as { stderr?: string }).stderr ?? String(err);
    return { skip: `go build failed: ${stderr.trim().split('\n').slice(-3).join(' | ')}`, buildFailed: true };
  } finally {
    await rm(join(src, pkg), { recursive: true, force: true });
  }
  await rename(tmp, binary);
  return { path: binary, goVersion };
}

/** Builds (or reuses) the benchmark's client-go contender. */
export function clientGoBinary(log: (line: string) => void = console.log): Promise<ClientGoBinary> {
  return buildClientGoProgram({ mainGo: MAIN_GO, name: 'informer', binDir: 'client-go-bench', label: 'client-go contender' }, log);
}

/** One client-go sync against `url`: the binary's JSON line. */
export async function clientGoSync(binary: string, url: string, expect: number): Promise<{ ms: number; cpuMs: number; cpuSettledMs: number; peakRssGrowth: number; size: number }> {
  const { stdout } = await run(binary, [url, String(expect)], { timeout: 600_000, env: { ...process.env, GOMAXPROCS: process.env.GOMAXPROCS ?? '' } });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { ms: number; cpuMs: number; cpuSettledMs: number; peakRssGrowth: number; size: number };
}
