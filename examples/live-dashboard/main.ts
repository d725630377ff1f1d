/**
 * A live dashboard in the browser: the same informers and operators as in Node, on rxkube's
 * browser entry (fetch and web streams), against the embedded API server, which also serves the
 * page (static files under `/ui/`) and runs a controller-manager with stand-in nodes while a
 * scenario rolls Deployments out, scales them and moves pods.
 *
 *   npx tsx --conditions=source examples/live-dashboard/main.ts            # prints the URL
 *   npx tsx --conditions=source examples/live-dashboard/main.ts --open     # and opens it in a browser
 *
 * Options: `--port N` (default: a free port), `--nodes N` (stand-in nodes, default 3),
 * `--step-ms N` (pause between scenario steps, default 2500), `--no-scenario`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { KubeClient, setupSignalHandler } from 'rxkube';
import { startApiServer, type ApiServer, type CorsOptions } from '@rxkube/testkit';
import { buildDashboard } from './build.js';
import { runScenario } from './scenario.js';

/** Options of {@link startLiveDashboard}. */
export interface LiveDashboardOptions {
  readonly port?: number;
  /** Stand-in node names, or how many (`node-1` …). Default 3. */
  readonly nodes?: number | readonly string[];
  /** Run the scenario (Deployments rolling out and scaling, pods moving). Default true. */
  readonly scenario?: boolean;
  readonly stepMs?: number;
  /** Told what the scenario does. */
  readonly say?: (line: string) => void;
  /** CORS for pages of other origins (a second dashboard pointed here with `?api=`). */
  readonly cors?: CorsOptions;
  /** Require this bearer token on the API (the page takes it from `#token=`). */
  readonly token?: string;
}

/** A running dashboard: its server, the page's URL, a Node client on the same server. */
export interface LiveDashboard {
  readonly server: ApiServer;
  /** The page: `<server>/ui/`. */
  readonly url: string;
  readonly client: KubeClient;
  /** A kubeconfig file for the server (kubectl), outside the served directory. */
  readonly kubeconfig: string;
  /** Stops the scenario, the server, and removes the built page. */
  stop(): Promise<void>;
}

/** Builds the page, starts the embedded API server serving it, and (by default) the scenario. */
export async function startLiveDashboard(options: LiveDashboardOptions = {}): Promise<LiveDashboard> {
  const base = await mkdtemp(join(tmpdir(), 'rxkube-dashboard-'));
  const out = join(base, 'page');
  await buildDashboard(out);
  const nodes = typeof options.nodes === 'object' ? options.nodes : Array.from({ length: options.nodes ?? 3 }, (_, i) => `node-${i + 1}`);
  const server = await startApiServer({
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.cors === undefined ? {} : { cors: options.cors }),
    staticFiles: { directory: out, pathPrefix: '/ui/' },
    controllers: { standInNodes: nodes },
  });
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  const kubeconfig = join(base, 'kubeconfig');
  await server.writeKubeconfig(kubeconfig);
  const stopScenario = new AbortController();
  const scenario = options.scenario === false
    ? Promise.resolve()
    : runScenario(client, { nodes, signal: stopScenario.signal, ...(options.stepMs === undefined ? {} : { stepMs: options.stepMs }), ...(options.say === undefined ? {} : { say: options.say }) });
  return {
    server,
    url: `${server.url}/ui/`,
    client,
    kubeconfig,
    async stop() {
      stopScenario.abort();
      await scenario.catch(() => undefined);
      client.close();
      await server.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** Asks the desktop to open `url`; tells why not when it cannot. */
function openInBrowser(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
  child.on('error', (e) => console.error(`could not open a browser (${e.message}); open ${url} yourself`));
  child.unref();
}

function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new Error(`--${name} needs a non-negative integer, got "${v}"`);
  return Number(v);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      open: { type: 'boolean' },
      port: { type: 'string' },
      nodes: { type: 'string' },
      'step-ms': { type: 'string' },
      'no-scenario': { type: 'boolean' },
    },
  });
  const port = positiveInt('port', values.port);
  const nodes = positiveInt('nodes', values.nodes);
  const stepMs = positiveInt('step-ms', values['step-ms']);
  const dashboard = await startLiveDashboard({
    ...(port === undefined ? {} : { port }),
    ...(nodes === undefined ? {} : { nodes }),
    ...(stepMs === undefined ? {} : { stepMs }),
    scenario: values['no-scenario'] !== true,
    say: (line) => console.log(`scenario: ${line}`),
  });
  console.log(`live dashboard: ${dashboard.url}`);
  console.log(`kubectl: export KUBECONFIG=${dashboard.kubeconfig}`);
  if (values.open === true) openInBrowser(dashboard.url);
  const signals = setupSignalHandler();
  await new Promise((resolve) => signals.signal.addEventListener('abort', resolve, { once: true }));
  signals.dispose();
  await dashboard.stop();
}
