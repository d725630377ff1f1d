import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiServerConfigError } from './server-errors.js';
import { startApiServer, type ApiServerOptions } from './start-api-server.js';
import { DEFAULT_KUBERNETES_VERSION, isKubernetesVersion, KUBERNETES_VERSIONS, type KubernetesVersion } from './kubernetes-version.js';

const USAGE = `rxkube-apiserver: an embedded Kubernetes API server on loopback, for development and tests.

Usage: rxkube-apiserver [--port N] [--host 127.0.0.1] [--token [VALUE]] [--tls]
                        [--history-window N] [--bookmark-interval-ms N] [--kubeconfig PATH] [--lenient]
                        [--page-rv0-lists] [--controllers] [--stand-in-nodes N] [--kubernetes-version 1.34]
                        [--cors-origin ORIGIN]... [--static DIR [--static-prefix /ui/]]

  --port N                 TCP port (default: a free port)
  --host H                 loopback address to bind (127.0.0.1, ::1 or localhost)
  --token [VALUE]          require a bearer token (random when no value is given)
  --tls                    serve HTTPS with a generated CA (written into the kubeconfig)
  --history-window N       changes kept for watch resumption (default 100000)
  --bookmark-interval-ms N interval of watch bookmarks (default 1000)
  --kubeconfig PATH        where to write the kubeconfig (default: a new temporary folder)
  --lenient                store objects as sent (no defaulting or validation of built-in kinds)
  --controllers            run rxkube-controller-manager in the same process (garbage collector,
                           namespace, Deployment and ReplicaSet controllers)
  --stand-in-nodes N       with --controllers: N fake nodes with a stand-in scheduler and kubelet
                           (pods get bound, Running and Ready)
  --cors-origin ORIGIN     answer cross-origin requests of browser pages from ORIGIN
                           (e.g. http://localhost:5173; '*' for any); repeatable
  --static DIR             serve the files of DIR under --static-prefix, without authentication
  --static-prefix P        URL path of --static (default /ui/)
  --page-rv0-lists         page resourceVersion=0 lists by limit (default: one response, as
                           kube-apiserver's watch cache)
  --kubernetes-version V   the Kubernetes version to emulate: ${KUBERNETES_VERSIONS.join(' or ')}
                           (default ${DEFAULT_KUBERNETES_VERSION}): /version, served APIs, streaming lists

Prints the URL and the kubeconfig path, then serves until SIGINT or SIGTERM.`;

function kubernetesVersion(v: string | undefined): KubernetesVersion | undefined {
  if (v === undefined || isKubernetesVersion(v)) return v;
  throw new ApiServerConfigError(`--kubernetes-version needs one of ${KUBERNETES_VERSIONS.join(', ')}, got "${v}"`, { option: 'kubernetes-version' });
}

function int(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new ApiServerConfigError(`--${name} needs a non-negative integer, got "${v}"`, { option: name });
  return Number(v);
}

/** Runs the command line; resolves when the server has stopped. */
export async function main(argv: readonly string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        tls: { type: 'boolean' },
        lenient: { type: 'boolean' },
        'history-window': { type: 'string' },
        'bookmark-interval-ms': { type: 'string' },
        kubeconfig: { type: 'string' },
        'page-rv0-lists': { type: 'boolean' },
        controllers: { type: 'boolean' },
        'stand-in-nodes': { type: 'string' },
        'cors-origin': { type: 'string', multiple: true },
        static: { type: 'string' },
        'static-prefix': { type: 'string' },
        'kubernetes-version': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    // `--token` without a value: parseArgs refuses it; treat it as "generate one".
    const i = argv.indexOf('--token');
    if (i >= 0 && (argv[i + 1] === undefined || argv[i + 1]?.startsWith('--'))) {
      return main([...argv.slice(0, i + 1), '', ...argv.slice(i + 1)]);
    }
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let server;
  try {
    const options: ApiServerOptions = {
      port: int('port', values.port),
      host: values.host,
      token: values.token === undefined ? undefined : values.token === '' ? true : values.token,
      tls: values.tls === true,
      strict: values.lenient !== true,
      historyWindow: int('history-window', values['history-window']),
      bookmarkIntervalMs: int('bookmark-interval-ms', values['bookmark-interval-ms']),
      pageResourceVersionZeroLists: values['page-rv0-lists'] === true,
      kubernetesVersion: kubernetesVersion(values['kubernetes-version']),
      ...(values['cors-origin'] === undefined ? {} : { cors: { origins: values['cors-origin'] } }),
      ...(values.static === undefined ? {} : { staticFiles: { directory: values.static, pathPrefix: values['static-prefix'] } }),
      ...(values.controllers === true ? { controllers: { standInNodes: int('stand-in-nodes', values['stand-in-nodes']) ?? 0 } } : {}),
    };
    server = await startApiServer(options);
  } catch (e) {
    process.stderr.write(`rxkube-apiserver: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const path = values.kubeconfig ?? join(await mkdtemp(join(tmpdir(), 'rxkube-apiserver-')), 'kubeconfig');
  await server.writeKubeconfig(path);
  // Handlers first (a caller may signal as soon as it reads the URL); a repeated signal (relayed
  // twice by a wrapper) must not fall through to the default action.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write(`rxkube-apiserver listening on ${server.url}\nKUBECONFIG=${path}\n`);
  if (values.static !== undefined) process.stdout.write(`serving ${values.static} at ${server.url}${values['static-prefix'] ?? '/ui/'}\n`);
  if (values.controllers === true) {
    process.stdout.write(`controllers running${values['stand-in-nodes'] !== undefined ? ` with ${values['stand-in-nodes']} stand-in node(s)` : ''}; try:\n  export KUBECONFIG=${path}\n  kubectl create deployment web --image=nginx --replicas=3\n  kubectl rollout status deployment/web\n`);
  }
  await stopped;
  await server.close();
  return 0;
}
