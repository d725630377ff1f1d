import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const managerBin = join(import.meta.dirname, '..', 'bin', 'rxkube-controller-manager.js');
const serverBin = join(import.meta.dirname, '..', '..', 'testkit', 'bin', 'rxkube-apiserver.js');

async function waitFor(f: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !f(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('rxkube-controller-manager and rxkube-apiserver --controllers commands', () => {
  let server: ApiServer;
  let dir: string;
  beforeAll(async () => {
    server = await startApiServer();
    dir = await mkdtemp(join(tmpdir(), 'rxkube-cm-cli-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('rxkube-controller-manager --kubeconfig manages a server: stand-in nodes come up, a ReplicaSet gets Running pods', async () => {
    const child = spawn(process.execPath, [managerBin, '--kubeconfig', join(dir, 'kubeconfig'), '--stand-in-nodes', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => out.includes('running'));
      expect(out, err).toMatch(/rxkube-controller-manager running: garbagecollector, namespace, deployment, replicaset, endpoint, 1 stand-in node/);
      server.create({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'default' }, spec: { replicas: 2, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } } as never);
      await waitFor(() => server.list('v1', 'Pod', 'default').filter((p) => (p as { status?: { phase?: string } }).status?.phase === 'Running').length === 2);
      expect(server.get('v1', 'Node', 'node-1')).toBeDefined();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('rejects an unknown controller', async () => {
    const child = spawn(process.execPath, [managerBin, '--controllers', 'nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    expect(await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))).toBe(2);
    expect(err).toMatch(/unknown controller "nope"/);
  });

  it('rxkube-apiserver --controllers --stand-in-nodes prints how to use kubectl', async () => {
    const child = spawn(process.execPath, [serverBin, '--controllers', '--stand-in-nodes', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(() => out.includes('rollout status'));
      expect(out).toMatch(/controllers running with 2 stand-in node\(s\)/);
      expect(out).toMatch(/export KUBECONFIG=\S+/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
