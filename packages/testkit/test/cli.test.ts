import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeClient } from './helpers.js';

const bin = join(import.meta.dirname, '..', 'bin', 'rxkube-apiserver.js');

describe('rxkube-apiserver command', () => {
  it('serves, prints URL and kubeconfig path, stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [bin, '--token', 'cli-token'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 300 && !out.includes('KUBECONFIG='); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out, err).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
      const kcPath = /KUBECONFIG=(\S+)/.exec(out)?.[1] ?? '';
      const yaml = await readFile(kcPath, 'utf8');
      expect(yaml).toContain(`server: ${url}`);
      expect(yaml).toContain('token: cli-token');
      expect((await makeClient(url, { token: 'cli-token' })('GET', '/api/v1/namespaces/default')).status).toBe(200);
      expect((await makeClient(url)('GET', '/api/v1/namespaces/default')).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('rejects bad flags with usage', async () => {
    const child = spawn(process.execPath, [bin, '--port', 'x'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toMatch(/--port needs a non-negative integer/);
    expect(err).toMatch(/Usage:/);
  });

  it('serves a directory with --static and answers preflights of --cors-origin', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxkube-cli-static-'));
    await writeFile(join(dir, 'index.html'), '<title>cli page</title>');
    const child = spawn(process.execPath, [bin, '--static', dir, '--static-prefix', '/app/', '--cors-origin', 'http://localhost:5173', '--cors-origin', 'http://127.0.0.1:3000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // Started through tsx from source: slow on a loaded machine.
      for (let i = 0; i < 1200 && !out.includes('serving'); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
      expect(out, err).toContain(`at ${url}/app/`);
      const call = makeClient(url);
      const page = await call('GET', '/app/');
      expect(page.text).toContain('cli page');
      for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000']) {
        const pre = await call('OPTIONS', '/api/v1/pods', undefined, undefined, { Origin: origin, 'Access-Control-Request-Method': 'GET' });
        expect(pre.status).toBe(204);
        expect(pre.headers['access-control-allow-origin']).toBe(origin);
      }
    } finally {
      child.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    }
    expect(await exited).toBe(0);
  }, 90_000);
});
