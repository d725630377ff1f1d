import { type ChildProcess, spawn } from 'node:child_process';
import type { SchedulerLike, Subscription } from 'rxjs';
import { rememberSecret } from '../logging/known-secrets.js';
import { ExecCredentialError } from './credential-errors.js';

/** Default time an exec credential plugin may run, in ms, before it is killed. */
export const DEFAULT_EXEC_TIMEOUT_MS = 30_000;
/** Most bytes kept of a plugin's stdout and stderr each (a credential is a few KB). */
const MAX_OUTPUT = 1 << 20;

/** Plugins running in this process, killed when it exits (a plugin runs in its own process group, so it would outlive it). */
const runningPlugins = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  runningPlugins.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of runningPlugins) killTree(c);
    });
  }
}

/** The `exec` section of a kubeconfig user (client-node's shape). */
export interface ExecConfig {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  readonly apiVersion?: string;
}

/** What a plugin gave: a bearer token and/or a client certificate and key (PEM). */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
  /** When the credential expires (ms since the epoch); undefined: until the server refuses it. */
  readonly expiresAt?: number;
}

/**
 * Runs a kubeconfig `exec` credential plugin and caches what it prints until its
 * `expirationTimestamp` (or until {@link invalidate}, e.g. after a 401). Concurrent requests
 * share one run. A run is bounded: the plugin (its whole process group) is killed after
 * `timeoutMs` on `scheduler`, and {@link close} kills any plugin still running (as does the
 * process's exit), so no process outlives the connection. Failures are {@link ExecCredentialError}s naming the plugin, the user
 * and the plugin's stderr.
 */
export class ExecCredentialSource {
  private cached: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;
  private readonly children = new Set<ChildProcess>();
  private closed = false;

  constructor(
    private readonly exec: ExecConfig,
    private readonly user: string,
    private readonly scheduler: SchedulerLike,
    private readonly timeoutMs = DEFAULT_EXEC_TIMEOUT_MS,
  ) {}

  /** A valid credential: the cached one, or a fresh run of the plugin. */
  credential(): Promise<ExecCredential> {
    const cached = this.cached;
    if (cached !== undefined && (cached.expiresAt === undefined || cached.expiresAt > this.scheduler.now())) return Promise.resolve(cached);
    this.cached = undefined;
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Forgets the cached credential (the server refused it): the next request runs the plugin again. */
  invalidate(): void {
    this.cached = undefined;
  }

  /** Kills every plugin still running; later calls fail. */
  close(): void {
    this.closed = true;
    for (const child of this.children) killTree(child);
    this.children.clear();
  }

  private fail(failure: ConstructorParameters<typeof ExecCredentialError>[2], detail: string, stderr = '', cause?: unknown): ExecCredentialError {
    return new ExecCredentialError(this.exec.command, this.user, failure, detail, stderr, cause === undefined ? {} : { cause });
  }

  private run(): Promise<ExecCredential> {
    if (this.closed) return Promise.reject(this.fail('closed', 'the connection is closed'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const { name, value } of this.exec.env ?? []) env[name] = value;
    env['KUBERNETES_EXEC_INFO'] = JSON.stringify({
      apiVersion: this.exec.apiVersion ?? 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    return new Promise<ExecCredential>((resolve, reject) => {
      let child: ChildProcess;
      try {
        // its own process group, so that a timeout or close() kills what it started too
        child = spawn(this.exec.command, [...(this.exec.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
      } catch (cause) {
        reject(this.fail('spawn', `could not be started: ${(cause as Error).message}`, '', cause));
        return;
      }
      this.children.add(child);
      track(child);
      let stdout = '';
      let stderr = '';
      let settled = false;
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        if (stdout.length < MAX_OUTPUT) stdout += d;
      });
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        if (stderr.length < MAX_OUTPUT) stderr += d;
      });
      const finish = (result: ExecCredential | ExecCredentialError): void => {
        if (settled) return;
        settled = true;
        timer?.unsubscribe();
        this.children.delete(child);
        runningPlugins.delete(child);
        if (result instanceof ExecCredentialError) reject(result);
        else resolve(result);
      };
      const timer: Subscription | undefined =
        this.timeoutMs > 0 && Number.isFinite(this.timeoutMs)
          ? this.scheduler.schedule(() => {
              killTree(child);
              finish(this.fail('timeout', `did not finish within ${this.timeoutMs} ms and was killed`, stderr));
            }, this.timeoutMs)
          : undefined;
      child.on('error', (err) => {
        killTree(child);
        finish(this.fail('spawn', `could not be started: ${err.message}`, stderr, err));
      });
      child.on('close', (code, signal) => {
        if (this.closed) return finish(this.fail('closed', 'the connection was closed while the plugin ran; it was killed', stderr));
        if (code !== 0) return finish(this.fail('exit', signal !== null ? `was killed by ${signal}` : `exited with code ${code}`, stderr));
        try {
          const credential = parseExecCredential(stdout);
          for (const s of [credential.token, credential.clientKeyData]) rememberSecret(s);
          this.cached = credential;
          finish(credential);
        } catch (err) {
          finish(this.fail('output', (err as Error).message, stderr));
        }
      });
    });
  }
}

/** Kills a plugin and the processes it started (its process group), ignoring ones already gone. */
function killTree(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * The credential in a plugin's stdout (an `ExecCredential` with `status.token` and/or
 * `status.clientCertificateData` + `clientKeyData`). Errors describe the shape, never the text
 * (which holds the credential).
 */
export function parseExecCredential(stdout: string): ExecCredential {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(stdout.trim() === '' ? 'printed nothing on stdout (expected an ExecCredential as JSON)' : `printed ${stdout.length} characters on stdout that are not JSON (expected an ExecCredential)`);
  }
  const obj = typeof parsed === 'object' && parsed !== null ? (parsed as { kind?: unknown; status?: unknown }) : {};
  if (obj.kind !== 'ExecCredential') throw new Error(`printed JSON of kind ${JSON.stringify(typeof obj.kind === 'string' ? obj.kind : typeof obj.kind)}, expected an ExecCredential`);
  const status = typeof obj.status === 'object' && obj.status !== null ? (obj.status as Record<string, unknown>) : {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const token = str(status['token'])?.trim();
  const cert = str(status['clientCertificateData']);
  const key = str(status['clientKeyData']);
  if (token === undefined && (cert === undefined || key === undefined)) {
    throw new Error('printed an ExecCredential without status.token or status.clientCertificateData and clientKeyData');
  }
  const expiry = str(status['expirationTimestamp']);
  const expiresAt = expiry === undefined ? undefined : Date.parse(expiry);
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) throw new Error('printed an ExecCredential whose status.expirationTimestamp is not a date');
  return {
    ...(token === undefined ? {} : { token }),
    ...(cert === undefined ? {} : { clientCertificateData: cert }),
    ...(key === undefined ? {} : { clientKeyData: key }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}
