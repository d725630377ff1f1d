/**
 * The embedded API server as it was before it became a Kubernetes 1.20.2 emulation (protobuf,
 * OpenAPI-driven surface, strict defaulting and validation, server-side apply with managedFields,
 * lifecycle): its source at {@link BASELINE_COMMIT}, extracted from this clone's git history with
 * `git archive` into the benchmarks' cache folder at bench time, so that the API server benchmark
 * runs it side by side with today's. Nothing of it is kept in the repository.
 *
 * The extracted tree reaches its dependencies (`@kubernetes/client-node`, `selfsigned`, rxjs) through
 * a `node_modules` link to this checkout's, which holds all of them.
 */
import { execFile } from 'node:child_process';
import { mkdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cacheDir, exists } from './client-go.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The last commit before the Kubernetes 1.20.2 emulation work began (both of its branches,
 * `apisurface` and `lifecycle`, start here): "The project stands alone: rule references point at
 * docs/semantics.md…". Its embedded server is the v0.1 one: lenient, JSON only.
 */
export const BASELINE_COMMIT = '5e4abd7a4b2fe61c3dad2bf7568b2f8a11ad194c';

/** The baseline server's entry module (exports `startApiServer`), or why it is skipped. */
export type BaselineServer = { readonly module: string; readonly commit: string } | { readonly skip: string };

/** Extracts the baseline once into `<cache>/api-server-<commit>`; later runs reuse it. */
export async function baselineServer(log: (line: string) => void = console.log): Promise<BaselineServer> {
  const dir = join(cacheDir(), `api-server-${BASELINE_COMMIT.slice(0, 12)}`);
  const module = join(dir, 'src/testing/index.ts');
  const commit = BASELINE_COMMIT.slice(0, 7);
  if (await exists(module)) {
    // The cache may be shared by several checkouts: link this one's node_modules.
    await rm(join(dir, 'node_modules'), { force: true });
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    return { module, commit };
  }
  try {
    await run('git', ['cat-file', '-e', `${BASELINE_COMMIT}^{commit}`], { cwd: ROOT });
  } catch {
    return { skip: `commit ${commit} is not in this clone's git history (a shallow clone or an unpacked tarball)` };
  }
  log(`baseline server: extracting src/ of ${commit} into the cache (once)`);
  const tmp = `${dir}.tmp-${process.pid}`;
  try {
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    const archive = join(tmp, 'src.tar');
    await run('git', ['archive', '--format=tar', '-o', archive, BASELINE_COMMIT, 'src', 'package.json', 'tsconfig.json'], { cwd: ROOT });
    await run('tar', ['xf', archive], { cwd: tmp });
    await rm(archive);
    await symlink(join(ROOT, 'node_modules'), join(tmp, 'node_modules'), 'dir');
    await rm(dir, { recursive: true, force: true });
    await rename(tmp, dir);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    return { skip: `could not extract ${commit}: ${e instanceof Error ? e.message : String(e)}` };
  }
  return { module, commit };
}
