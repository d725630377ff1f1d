/**
 * The guide (docs/guide/0*.md), executed: every ```console step, in order, with the output the guide
 * shows (syntax in test/e2e/helpers/guide-steps.ts). From an empty folder, `npm create rxkube`
 * scaffolds a project with the packed packages of this checkout, which is installed, committed,
 * tested from a fresh `git clone`, run on the embedded API server, built, given its derived RBAC
 * on a kube-apiserver 1.20 of its own (the shared one's namespaces cannot be deleted: no
 * controller-manager runs), and run as its ServiceAccount until a Widget is Ready and, deleted,
 * goes after its finalizer ran. A step whose output differs fails naming the guide's file and line.
 *
 * What the test adds to the guide's commands, as a reader's machine would have it:
 * - `npm create rxkube@latest DIR -- ARGS` runs the packed create-rxkube (installed with the packed
 *   rxkube, as `npm create` installs a package with its peer), and the project's rxkube packages
 *   are then pointed at the tarballs (packages/create-rxkube/scripts/point-at-tarballs.mjs): they
 *   are not published from this checkout. Third-party packages come from the registry (npm's cache
 *   first).
 * - The environment: KUBECONFIG of the test's cluster admin, HEALTH_PORT/METRICS_PORT 0 (free
 *   ports on a shared machine), a git identity, no colours, npm without audit and funding requests
 *   and preferring its cache (what they print is covered by the guide's `...` lines).
 *
 * RXKUBE_E2E_TARBALLS=DIR reuses the tarballs pack-workspace.sh wrote there (iterating on the
 * guide); RXKUBE_E2E_KEEP=1 keeps the work folder.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/api-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { e2eShared, hasCluster } from './helpers/cluster.js';
import { matchOutput, mismatchMessage, normalizeOutput, parseGuide, type ExpectedLine, type GuideStep } from './helpers/guide-steps.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const guideDir = join(root, 'docs', 'guide');
const scripts = join(root, 'packages', 'create-rxkube', 'scripts');
const CREATE = /^npm create rxkube@latest (\S+) -- (.*)$/;
const INTERRUPT_GRACE_MS = 30_000;
const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true } as const;

const guideFiles = readdirSync(guideDir)
  .filter((f) => /^\d.*\.md$/.test(f))
  .sort();
const steps: GuideStep[] = guideFiles.flatMap((f) => parseGuide(relative(root, join(guideDir, f)), readFileSync(join(guideDir, f), 'utf8')));

/** A command of the guide, running: its merged stdout and stderr, and how much of it steps have matched. */
interface Running {
  readonly child: ChildProcess;
  output: string;
  consumed: number;
  readonly exited: Promise<number | string>;
  readonly onData: Set<() => void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasCluster)('the guide, from an empty folder to a reconciled Widget (docs/guide)', () => {
  let work = '';
  let home = '';
  let cwd = '';
  let tarballs = '';
  let tool = '';
  let cluster = '';
  let admin = '';
  let broken: string | undefined;
  const sessions = new Map<string, Running>();
  const t0 = Date.now();

  const env = (): NodeJS.ProcessEnv => ({
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? home,
    ...(process.env.npm_config_cache === undefined ? {} : { npm_config_cache: process.env.npm_config_cache }),
    TMPDIR: tmpdir(),
    LANG: 'C.UTF-8',
    KUBECONFIG: admin,
    HEALTH_PORT: '0',
    METRICS_PORT: '0',
    NO_COLOR: '1',
    npm_config_prefer_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    GIT_AUTHOR_NAME: 'Guide Reader',
    GIT_AUTHOR_EMAIL: 'reader@example.com',
    GIT_COMMITTER_NAME: 'Guide Reader',
    GIT_COMMITTER_EMAIL: 'reader@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
  });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'rxkube-guide-'));
    home = join(work, 'reader');
    cwd = home;
    mkdirSync(home);
    const apiserver = (async () => {
      cluster = join(work, 'apiserver');
      const { stdout } = await run('bash', [join(e2eShared, 'kube-apiserver', 'start.sh'), cluster], { timeout: 240_000 });
      admin = (stdout.trim().split('\n').at(-1) ?? '').replace(/^KUBECONFIG=/, '');
    })();
    const packages = (async () => {
      const reuse = process.env.RXKUBE_E2E_TARBALLS;
      tarballs = join(reuse ?? work, 'tarballs.json');
      if (reuse === undefined) await run('bash', [join(scripts, 'pack-workspace.sh'), work], { timeout: 400_000, maxBuffer: 1 << 24 });
      // What `npm create rxkube` installs: create-rxkube with its peer rxkube.
      const list = JSON.parse(readFileSync(tarballs, 'utf8')) as Record<string, string>;
      tool = join(work, 'tool');
      mkdirSync(tool);
      await run('npm', ['init', '-y'], { cwd: tool, env: env(), timeout: 60_000 });
      await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', list['create-rxkube'] ?? '', list.rxkube ?? ''], { cwd: tool, env: env(), timeout: 240_000 });
    })();
    const results = await Promise.allSettled([apiserver, packages]);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }, 600_000);

  afterAll(async () => {
    for (const s of sessions.values()) stopGroup(s.child, 'SIGKILL');
    if (cluster !== '' && existsSync(cluster)) await run('bash', [join(e2eShared, 'kube-apiserver', 'stop.sh'), cluster], { timeout: 60_000 }).catch(() => undefined);
    if (process.env.RXKUBE_E2E_KEEP === '1') console.log(`kept ${work}`);
    else if (work !== '') rmSync(work, { recursive: true, force: true });
    console.log(`the guide ran in ${Math.round((Date.now() - t0) / 1000)} s`);
  }, 120_000);

  it('covers the journey the issue asks for', () => {
    const commands = steps.map((s) => s.command ?? '');
    for (const wanted of [
      /^npm create rxkube@latest /,
      /^git commit /,
      /^git clone /,
      /^npm test$/,
      /^npm run dev$/,
      /^npm run build$/,
      /^npm run manifests/,
      /^kubectl apply -f deploy\/rbac\.yaml$/,
      /^kubectl config set-credentials .*kubectl create token/,
      /npm start$/,
      /^kubectl wait widget\/hello --for=condition=Ready/,
      /^kubectl delete widget hello/,
    ])
      expect(commands.some((c) => wanted.test(c)), `a guide step matching ${wanted}`).toBe(true);
    expect(steps.some((s) => s.exit === 1 && /forbidden/.test(s.expected.map((l) => l.text).join('\n'))), 'a refused write').toBe(true);
  });

  for (const step of steps) {
    const title = `${step.file}:${step.line} ${step.command === undefined ? `(${step.session}, continued)` : `$ ${step.command.split('\n')[0] ?? ''}`}`;
    it(title, async (ctx) => {
      // The steps build on each other: after a failure the rest only repeat it.
      if (broken !== undefined) ctx.skip(`${broken} failed`);
      try {
        await runStep(step);
      } catch (err) {
        broken = `${step.file}:${step.line}`;
        throw err;
      }
    }, step.timeoutMs + INTERRUPT_GRACE_MS + 10_000);
  }

  it('ran the operator without a refused request, and least privilege is real (403 on a write outside its rules)', async (ctx) => {
    if (broken !== undefined) ctx.skip(`${broken} failed`);
    const operator = sessions.get('operator');
    expect(operator?.output ?? '').toContain('"msg":"manager stopped"');
    expect(operator?.output ?? '').not.toMatch(/forbidden/i);
    // The operator's own credentials, used by rxkube's client: a write outside the derived rules.
    const config = new KubeConfig();
    config.loadFromFile(join(home, 'my-operator', 'operator.kubeconfig'));
    const client = KubeClient.fromKubeConfig(config);
    try {
      const err = await client
        .objects(CONFIG_MAPS, 'my-operator-system')
        .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'outside-the-rules' } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ statusCode: 403, reason: 'Forbidden' });
    } finally {
      client.close();
    }
  });

  async function runStep(step: GuideStep): Promise<void> {
    if (step.command === undefined) {
      const session = sessions.get(step.session);
      if (session === undefined) throw new Error(`${step.file}:${step.line}: session '${step.session}' has no running command`);
      await expectOutput(step, session);
      return;
    }
    const cd = /^cd (\S+)$/.exec(step.command);
    if (cd !== null) {
      const to = resolve(cwd, cd[1] ?? '');
      if (!existsSync(to) || !statSync(to).isDirectory()) throw new Error(`${step.file}:${step.line}: \`cd\`: no folder ${to}`);
      cwd = to;
      return;
    }
    if (step.session !== 'main' && sessions.has(step.session)) throw new Error(`${step.file}:${step.line}: session '${step.session}' already runs a command`);
    const running = startIn(commandToRun(step.command), cwd, env());
    if (step.session !== 'main') {
      sessions.set(step.session, running);
      await expectOutput(step, running);
      return;
    }
    if (step.afterInterrupt !== undefined) {
      await expectOutput(step, running);
      return;
    }
    const exit = await Promise.race([running.exited, sleep(step.timeoutMs).then(() => 'timeout' as const)]);
    if (exit === 'timeout') {
      stopGroup(running.child, 'SIGKILL');
      throw new Error(`${step.file}:${step.line}: \`${step.command}\` did not finish within ${step.timeoutMs / 1000} s\n--- it printed:\n${normalizeOutput(running.output)}---`);
    }
    const output = normalizeOutput(running.output);
    if (exit !== step.exit) throw new Error(`${step.file}:${step.line}: \`${step.command}\` exited ${exit}, the guide expects ${step.exit}\n--- it printed:\n${output}---`);
    const result = matchOutput(output, step.expected, true);
    if (!result.ok) throw new Error(mismatchMessage(step, result, output));
  }

  /** The guide's command as this machine runs it (see the file's comment). */
  function commandToRun(command: string): string {
    const create = CREATE.exec(command);
    if (create === null) return command;
    const [, dir = '', args = ''] = create;
    const bin = join(tool, 'node_modules', 'create-rxkube', 'bin', 'create-rxkube.js');
    return `node ${quote(bin)} ${quote(dir)} ${args} && node ${quote(join(scripts, 'point-at-tarballs.mjs'))} ${quote(join(dir, 'package.json'))} ${quote(tarballs)}`;
  }

  /**
   * Waits until the output (since what earlier steps matched) starts with the expected lines
   * (before `^C`); then, for a `^C`, interrupts the command and matches what it prints while it stops.
   */
  async function expectOutput(step: GuideStep, running: Running): Promise<void> {
    const deadline = Date.now() + step.timeoutMs;
    const current = (): string => normalizeOutput(running.output.slice(running.consumed));
    let matched = matchOutput(current(), step.expected, false);
    let exited = false;
    void running.exited.then(() => (exited = true));
    while (!matched.ok) {
      if (exited || Date.now() > deadline) {
        const why = exited ? `it ended (${String(await running.exited)}) before printing what the guide shows` : `not within ${step.timeoutMs / 1000} s`;
        throw new Error(`${mismatchMessage(step, matched, current())}\n(${why})`);
      }
      await waitForData(running, Math.min(1_000, Math.max(0, deadline - Date.now())));
      matched = matchOutput(current(), step.expected, false);
    }
    // Continue after the matched lines: normalized and raw output agree line by line.
    running.consumed += rawLength(running.output.slice(running.consumed), lineCount(current().slice(0, matched.length)));
    if (step.afterInterrupt === undefined) return;
    await interrupt(running.child);
    const exit = await Promise.race([running.exited, sleep(INTERRUPT_GRACE_MS).then(() => 'timeout' as const)]);
    if (exit === 'timeout') {
      stopGroup(running.child, 'SIGKILL');
      throw new Error(`${step.file}:${step.line}: did not stop within ${INTERRUPT_GRACE_MS / 1000} s of Ctrl-C`);
    }
    const rest = normalizeOutput(running.output.slice(running.consumed));
    const result = matchOutput(rest, step.afterInterrupt as readonly ExpectedLine[], true);
    if (!result.ok) throw new Error(mismatchMessage(step, result, rest, 'output after Ctrl-C'));
    if (exit !== 0 && exit !== 130 && exit !== 'SIGINT') throw new Error(`${step.file}:${step.line}: stopped by Ctrl-C with ${exit}\n${rest}`);
  }
});

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function lineCount(text: string): number {
  return text.split('\n').length - 1;
}

/** The length of the first `lines` lines of raw output. */
function rawLength(raw: string, lines: number): number {
  let at = 0;
  for (let i = 0; i < lines; i++) {
    const next = raw.indexOf('\n', at);
    if (next < 0) return raw.length;
    at = next + 1;
  }
  return at;
}

/** Runs a command in bash, in its own process group (as a terminal would: Ctrl-C reaches all of it), stderr merged into stdout. */
function startIn(command: string, cwd: string, env: NodeJS.ProcessEnv): Running {
  const child = spawn('bash', ['-c', `exec 2>&1\n${command}`], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  const onData = new Set<() => void>();
  const running: Running = {
    child,
    output: '',
    consumed: 0,
    onData,
    exited: new Promise((resolve) => {
      // 'close': the exit status once all of the output has been read.
      child.on('close', (code, signal) => resolve(code ?? signal ?? -1));
      child.on('error', (err) => resolve(err.message));
    }),
  };
  child.stdout?.on('data', (d: Buffer) => {
    // Bounded: what a step's match would need is far less.
    if (running.output.length < 8_000_000) running.output += d.toString();
    for (const f of onData) f();
  });
  return running;
}

function waitForData(running: Running, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      running.onData.delete(done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    running.onData.add(done);
  });
}

/**
 * Ctrl-C, as the application gets it: SIGINT to the innermost node process of the command (the
 * app under npm, sh and tsx). Not to the whole group as a terminal does: npm forwards a SIGINT to
 * its script, and tsx relays one to its child when the child does not acknowledge within 30 ms (then
 * SIGKILLs it), so on a loaded machine the app can get a second SIGINT, on which a manager's signal
 * handler exits at once, without the graceful stop the guide shows. Falls back to the group.
 */
async function interrupt(child: ChildProcess): Promise<void> {
  const group = child.pid;
  if (group === undefined) return;
  const { stdout } = await run('ps', ['-eo', 'pid=,ppid=,pgid=,comm=']).catch(() => ({ stdout: '' }));
  const processes = stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((fields) => Number(fields[2]) === group)
    .map(([pid, ppid, , comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm ?? '' }));
  const depth = (pid: number, seen = 0): number => {
    const parent = processes.find((p) => p.pid === pid)?.ppid;
    return parent === undefined || seen > 50 ? 0 : 1 + depth(parent, seen + 1);
  };
  const app = processes.filter((p) => p.comm === 'node').sort((a, b) => depth(b.pid) - depth(a.pid))[0];
  if (app === undefined) stopGroup(child, 'SIGINT');
  else process.kill(app.pid, 'SIGINT');
}

function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
