import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client-node-module.js';
import { InClusterConfigError, KubeConfigError } from './kubeconfig-errors.js';
import type { KubeConfigLike } from './kube-config-like.js';

/** Where a pod's service-account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Loads a kubeconfig file as client-node does (relative paths resolve against its folder), with
 * typed errors: {@link KubeConfigError} `KUBECONFIG_NOT_FOUND` / `KUBECONFIG_UNREADABLE` /
 * `KUBECONFIG_PARSE` (line and column) / `KUBECONFIG_INVALID`, each naming the file.
 */
export function loadKubeConfigFile(file: string): KubeConfig {
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new KubeConfigError('CLIENT_KUBECONFIG_UNREADABLE', `kubeconfig ${file} is not a file`, file);
    accessSync(file, constants.R_OK);
    if (stat.size === 0) throw new KubeConfigError('CLIENT_KUBECONFIG_INVALID', `kubeconfig ${file} is empty`, file);
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new KubeConfigError('CLIENT_KUBECONFIG_NOT_FOUND', `kubeconfig file ${file} does not exist`, file, undefined, { cause: err });
    }
    throw new KubeConfigError('CLIENT_KUBECONFIG_UNREADABLE', `kubeconfig file ${file} cannot be read: ${messageOf(err)}`, file, undefined, { cause: err });
  }
  const kc = new (clientNode().KubeConfig)();
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
    checkTokenFiles(text, file);
    kc.loadFromFile(file);
  } catch (err) {
    throw describeLoadError(err, file);
  }
  keepTokenFiles(kc, text);
  return checkNotEmpty(kc, file);
}

/** Parses kubeconfig text (e.g. from a Secret); errors as {@link loadKubeConfigFile}, without a file. */
export function loadKubeConfigString(text: string, source?: string): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  try {
    checkTokenFiles(text, source);
    kc.loadFromString(text);
  } catch (err) {
    throw describeLoadError(err, source);
  }
  keepTokenFiles(kc, text);
  return checkNotEmpty(kc, source);
}

/** `token-file` of every user in kubeconfig YAML (by user name); empty when the YAML cannot be read. */
function tokenFilesIn(text: string): Map<string, string> {
  const files = new Map<string, string>();
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch {
    return files; // client-node reports the parse error
  }
  const users = (doc as { users?: unknown } | null)?.users;
  if (!Array.isArray(users)) return files;
  for (const entry of users as unknown[]) {
    const e = entry as { name?: unknown; user?: { 'token-file'?: unknown } } | null;
    const file = e?.user?.['token-file'];
    if (typeof e?.name === 'string' && typeof file === 'string' && file !== '') files.set(e.name, file);
  }
  return files;
}

/** A `token-file` that does not exist fails the load naming it (client-node would throw a bare ENOENT). */
function checkTokenFiles(text: string, file: string | undefined): void {
  for (const [user, tokenFile] of tokenFilesIn(text)) checkReadable(tokenFile, `user "${user}" token-file`, file);
}

/**
 * client-node reads a `token-file` once, at load, into `token` (newline included) and forgets the
 * path; rxkube keeps the path as `tokenFile` so that the connection trims the token and reads the
 * file again every minute (client-go's behaviour).
 */
function keepTokenFiles(kc: KubeConfig, text: string | undefined): void {
  if (text === undefined) return;
  const files = tokenFilesIn(text);
  if (files.size === 0) return;
  for (const user of kc.users) {
    const file = files.get(user.name);
    if (file !== undefined) Object.assign(user, { tokenFile: file });
  }
}

/**
 * Checks that the files the current context needs exist and can be read: the cluster's
 * `certificate-authority`, the user's `client-certificate`, `client-key` and token file. Throws
 * {@link KubeConfigError} `CLIENT_KUBECONFIG_FILE_MISSING` naming the file (rather than a raw
 * `ENOENT` at the first request).
 */
export function checkCredentialFiles(kc: KubeConfigLike, file?: string): void {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (cluster?.caFile) checkReadable(cluster.caFile, `cluster "${cluster.name}" certificate-authority`, file);
  if (user === null) return;
  if (user.certFile) checkReadable(user.certFile, `user "${user.name}" client-certificate`, file);
  if (user.keyFile) checkReadable(user.keyFile, `user "${user.name}" client-key`, file);
  if (user.tokenFile) checkReadable(user.tokenFile, `user "${user.name}" token-file`, file);
  const provider = (user.authProvider as { config?: { tokenFile?: unknown } } | undefined)?.config?.tokenFile;
  if (typeof provider === 'string' && provider !== '') checkReadable(provider, `user "${user.name}" token file`, file);
}

function checkReadable(path: string, what: string, file: string | undefined): void {
  try {
    accessSync(path, constants.R_OK);
  } catch (err) {
    const where = file === undefined ? 'kubeconfig' : `kubeconfig ${file}`;
    const code = (err as { code?: unknown }).code;
    const why = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${String(code ?? err)})`;
    throw new KubeConfigError('CLIENT_KUBECONFIG_FILE_MISSING', `${where}: ${what} file ${path} ${why}`, file, undefined, { cause: err, missingFile: path });
  }
}

/** YAML that defines no cluster, context or user at all (a scalar, an unrelated document) is not a kubeconfig. */
function checkNotEmpty(kc: KubeConfig, file: string | undefined): KubeConfig {
  if ((kc.clusters?.length ?? 0) + (kc.contexts?.length ?? 0) + (kc.users?.length ?? 0) === 0) {
    const where = file === undefined ? 'kubeconfig' : `kubeconfig ${file}`;
    throw new KubeConfigError('CLIENT_KUBECONFIG_INVALID', `${where} is not a kubeconfig: it defines no clusters, contexts or users`, file);
  }
  return kc;
}

/**
 * Checks that the current context exists and names a cluster with a valid server URL; throws
 * {@link KubeConfigError} `KUBECONFIG_NO_CONTEXT`, `KUBECONFIG_NO_CLUSTER` or `KUBECONFIG_BAD_SERVER`.
 * Returns the server URL.
 */
export function checkCurrentContext(kc: KubeConfigLike, file?: string): URL {
  const where = file === undefined ? 'kubeconfig' : `kubeconfig ${file}`;
  const name = kc.getCurrentContext();
  if (!name) {
    const names = kc.contexts.map((c) => c.name);
    const hint = names.length === 0 ? 'it defines no contexts' : `contexts: ${names.join(', ')}; pick one with current-context`;
    throw new KubeConfigError('CLIENT_KUBECONFIG_NO_CONTEXT', `${where} has no current context (${hint})`, file);
  }
  const context = kc.getContextObject(name);
  if (context === null) throw new KubeConfigError('CLIENT_KUBECONFIG_NO_CONTEXT', `${where}: current-context "${name}" is not defined`, file);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) {
    throw new KubeConfigError('CLIENT_KUBECONFIG_NO_CLUSTER', `${where}: context "${name}" names cluster "${context.cluster}", which is not defined`, file);
  }
  try {
    return new URL(cluster.server);
  } catch (err) {
    throw new KubeConfigError(
      'CLIENT_KUBECONFIG_BAD_SERVER',
      `${where}: cluster "${cluster.name}" has an invalid server URL ${JSON.stringify(cluster.server)}`,
      file,
      undefined,
      { cause: err },
    );
  }
}

/**
 * The default configuration, in client-node's order: every file of `KUBECONFIG` (merged), else
 * `~/.kube/config`, else the pod's service account. Unlike client-node it does not fall back to
 * `http://localhost:8080`: with none of the three it throws a {@link KubeConfigError} saying what
 * it looked for.
 */
export function loadDefaultKubeConfig(env: NodeJS.ProcessEnv = process.env): { kubeConfig: KubeConfig; file?: string } {
  const list = env['KUBECONFIG'];
  if (list !== undefined && list !== '') {
    const files = list.split(delimiter).filter(Boolean);
    const [first, ...rest] = files.map((f) => ({ file: f, kc: loadKubeConfigFile(f) }));
    if (first === undefined) throw new KubeConfigError('CLIENT_KUBECONFIG_NOT_FOUND', `KUBECONFIG=${JSON.stringify(list)} names no file`);
    for (const more of rest) first.kc.mergeConfig(more.kc);
    return files.length === 1 ? { kubeConfig: first.kc, file: first.file } : { kubeConfig: first.kc };
  }
  const home = join(homedir(), '.kube', 'config');
  if (exists(home)) return { kubeConfig: loadKubeConfigFile(home), file: home };
  if (env['KUBERNETES_SERVICE_HOST']) return { kubeConfig: loadInClusterConfig(env) };
  throw new KubeConfigError(
    'CLIENT_KUBECONFIG_NOT_FOUND',
    `no cluster configuration: KUBECONFIG is not set, ${home} does not exist, and KUBERNETES_SERVICE_HOST is not set (not running in a pod)`,
  );
}

/**
 * The pod's service-account configuration. Throws {@link InClusterConfigError} naming what is
 * missing: `KUBERNETES_SERVICE_HOST` / `KUBERNETES_SERVICE_PORT`, or the token or CA file under
 * `dir` (default {@link SERVICE_ACCOUNT_DIR}).
 */
export function loadInClusterConfig(env: NodeJS.ProcessEnv = process.env, dir: string = SERVICE_ACCOUNT_DIR): KubeConfig {
  for (const name of ['KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT']) {
    if (!env[name]) {
      throw new InClusterConfigError(
        'CLIENT_IN_CLUSTER_NO_ENV',
        `not running in a Kubernetes pod: ${name} is not set (in-cluster configuration needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT; outside a cluster use a kubeconfig)`,
        name,
      );
    }
  }
  const token = join(dir, 'token');
  if (!exists(token)) {
    throw new InClusterConfigError(
      'CLIENT_IN_CLUSTER_NO_TOKEN',
      `in-cluster configuration: the service-account token ${token} does not exist (is automountServiceAccountToken false?)`,
      token,
    );
  }
  const ca = join(dir, 'ca.crt');
  if (!exists(ca)) throw new InClusterConfigError('CLIENT_IN_CLUSTER_NO_CA', `in-cluster configuration: the cluster CA ${ca} does not exist`, ca);
  const kc = new (clientNode().KubeConfig)();
  const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '';
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const namespaceFile = join(dir, 'namespace');
  const namespace = exists(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : undefined;
  kc.loadFromOptions({
    clusters: [{ name: 'inCluster', server, caFile: ca, skipTLSVerify: false }],
    users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: token } } }],
    contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser', ...(namespace ? { namespace } : {}) }],
    currentContext: 'inClusterContext',
  });
  return kc;
}

function describeLoadError(err: unknown, file: string | undefined): KubeConfigError {
  if (err instanceof KubeConfigError) return err;
  const where = file === undefined ? 'kubeconfig' : `kubeconfig ${file}`;
  const e = err as { name?: unknown; reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  if (e?.name === 'YAMLException') {
    const line = typeof e.mark?.line === 'number' ? e.mark.line + 1 : undefined;
    const column = typeof e.mark?.column === 'number' ? e.mark.column + 1 : undefined;
    const reason = typeof e.reason === 'string' ? e.reason : messageOf(err).split('\n')[0];
    const at = line === undefined ? '' : ` at line ${line}${column === undefined ? '' : `, column ${column}`}`;
    return new KubeConfigError(
      'CLIENT_KUBECONFIG_PARSE',
      `${where} is not valid YAML${at}: ${reason}`,
      file,
      line === undefined ? undefined : { line, column: column ?? 1 },
      { cause: err },
    );
  }
  if (err instanceof TypeError) {
    return new KubeConfigError('CLIENT_KUBECONFIG_INVALID', `${where} is not a kubeconfig (empty, or not a mapping with clusters, contexts and users)`, file, undefined, { cause: err });
  }
  return new KubeConfigError('CLIENT_KUBECONFIG_INVALID', `${where} is not a valid kubeconfig: ${messageOf(err)}`, file, undefined, { cause: err });
}

function exists(path: string): boolean {
  try {
    accessSync(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
