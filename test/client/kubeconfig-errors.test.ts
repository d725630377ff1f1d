/** Typed, clear errors for kubeconfig problems and for in-cluster configuration outside a pod. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { InClusterConfigError, KubeConfigError } from '../../src/client/kubeconfig-errors.js';
import { loadDefaultKubeConfig, loadInClusterConfig } from '../../src/client/kubeconfig-load.js';

const dir = mkdtempSync(join(tmpdir(), 'rxkube-kubeconfig-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

const VALID = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: abc}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`;

describe('KubeClient.fromFile', () => {
  it('a missing file: KUBECONFIG_NOT_FOUND naming the path', () => {
    const err = thrown(() => KubeClient.fromFile('/nope/kubeconfig'));
    expect(err).toBeInstanceOf(KubeConfigError);
    expect(err).toMatchObject({ code: 'CLIENT_KUBECONFIG_NOT_FOUND', file: '/nope/kubeconfig', message: 'kubeconfig file /nope/kubeconfig does not exist' });
  });

  it('a folder: KUBECONFIG_UNREADABLE', () => {
    expect(thrown(() => KubeClient.fromFile(dir))).toMatchObject({ code: 'CLIENT_KUBECONFIG_UNREADABLE', message: `kubeconfig ${dir} is not a file` });
  });

  it('garbage: KUBECONFIG_PARSE with the file, line and column', () => {
    const path = file('garbage', 'apiVersion: v1\nclusters:\n  - name: c\n   bad: [unclosed\n');
    const err = thrown(() => KubeClient.fromFile(path)) as KubeConfigError;
    expect(err).toBeInstanceOf(KubeConfigError);
    expect(err.code).toBe('CLIENT_KUBECONFIG_PARSE');
    expect(err.file).toBe(path);
    expect(err.position?.line).toBeGreaterThanOrEqual(3);
    expect(err.message).toMatch(new RegExp(`^kubeconfig ${path} is not valid YAML at line \\d+, column \\d+: `));
  });

  it('YAML that is not a kubeconfig: KUBECONFIG_INVALID', () => {
    expect(thrown(() => KubeClient.fromFile(file('scalar', 'hello world\n')))).toMatchObject({ code: 'CLIENT_KUBECONFIG_INVALID' });
    expect(thrown(() => KubeClient.fromFile(file('empty', '')))).toMatchObject({ code: 'CLIENT_KUBECONFIG_INVALID' });
    const broken = file('broken', 'clusters:\n- cluster: {server: "https://x"}\n');
    expect(thrown(() => KubeClient.fromFile(broken))).toMatchObject({ code: 'CLIENT_KUBECONFIG_INVALID', message: `kubeconfig ${broken} is not a valid kubeconfig: clusters[0].name is missing` });
  });

  it('no current context, an undefined one, or one naming no cluster', () => {
    const none = file('no-context', VALID.replace('current-context: ctx\n', ''));
    expect(thrown(() => KubeClient.fromFile(none))).toMatchObject({
      code: 'CLIENT_KUBECONFIG_NO_CONTEXT',
      message: `kubeconfig ${none} has no current context (contexts: ctx; pick one with current-context)`,
    });
    const other = file('other-context', VALID.replace('current-context: ctx', 'current-context: prod'));
    expect(thrown(() => KubeClient.fromFile(other))).toMatchObject({ code: 'CLIENT_KUBECONFIG_NO_CONTEXT', message: `kubeconfig ${other}: current-context "prod" is not defined` });
    const noCluster = file('no-cluster', VALID.replace('context: {cluster: c, user: u}', 'context: {cluster: gone, user: u}'));
    expect(thrown(() => KubeClient.fromFile(noCluster))).toMatchObject({ code: 'CLIENT_KUBECONFIG_NO_CLUSTER' });
    const badServer = file('bad-server', VALID.replace('https://127.0.0.1:6443', 'not a url'));
    expect(thrown(() => KubeClient.fromFile(badServer))).toMatchObject({ code: 'CLIENT_KUBECONFIG_BAD_SERVER' });
  });

  it('a valid file loads', () => {
    const client = KubeClient.fromFile(file('valid', VALID));
    expect(client.connection.server.href).toBe('https://127.0.0.1:6443/');
    client.close();
  });
});

describe('default and in-cluster configuration', () => {
  it('KUBECONFIG naming a missing file names it', () => {
    expect(thrown(() => loadDefaultKubeConfig({ KUBECONFIG: '/nope/a' }))).toMatchObject({ code: 'CLIENT_KUBECONFIG_NOT_FOUND', file: '/nope/a' });
  });

  it('inCluster() outside a pod names the missing variable', () => {
    const err = thrown(() => loadInClusterConfig({}));
    expect(err).toBeInstanceOf(InClusterConfigError);
    expect(err).toMatchObject({ code: 'CLIENT_IN_CLUSTER_NO_ENV', missing: 'KUBERNETES_SERVICE_HOST' });
    expect((err as Error).message).toMatch(/^not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set/);
    expect(thrown(() => loadInClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }))).toMatchObject({ missing: 'KUBERNETES_SERVICE_PORT' });
  });

  it('inCluster() without the token file names the file', () => {
    const err = thrown(() => loadInClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, join(dir, 'sa')));
    expect(err).toMatchObject({ code: 'CLIENT_IN_CLUSTER_NO_TOKEN', missing: join(dir, 'sa', 'token') });
  });

  it('inCluster() with a mounted service account builds the config', () => {
    const sa = mkdtempSync(join(tmpdir(), 'rxkube-sa-'));
    writeFileSync(join(sa, 'token'), 'tok');
    writeFileSync(join(sa, 'ca.crt'), 'ca');
    writeFileSync(join(sa, 'namespace'), 'ops\n');
    const kc = loadInClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, sa);
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('ops');
  });

  it('KubeClient.inCluster() here (no pod) fails with InClusterConfigError, not TypeError', () => {
    const saved = process.env['KUBERNETES_SERVICE_HOST'];
    delete process.env['KUBERNETES_SERVICE_HOST'];
    try {
      expect(thrown(() => KubeClient.inCluster())).toBeInstanceOf(InClusterConfigError);
    } finally {
      if (saved !== undefined) process.env['KUBERNETES_SERVICE_HOST'] = saved;
    }
  });
});
