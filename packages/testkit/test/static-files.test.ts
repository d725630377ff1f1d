import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiServerConfigError, startApiServer, type ApiServer } from '../src/index.js';
import { makeClient } from './helpers.js';

let base: string;
let site: string;
let server: ApiServer | undefined;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'rxkube-static-'));
  site = join(base, 'site');
  await mkdir(join(site, 'assets'), { recursive: true });
  await writeFile(join(site, 'index.html'), '<!doctype html><title>ui</title>');
  await writeFile(join(site, 'assets', 'app.js'), 'export const x = 1;\n');
  await writeFile(join(site, 'assets', 'style.css'), 'body{}');
  await writeFile(join(site, 'assets', 'blob.bin'), Buffer.from([1, 2, 3]));
  await writeFile(join(site, 'big.txt'), 'x'.repeat(2048));
  await writeFile(join(site, '.env'), 'SECRET=1');
  await writeFile(join(base, 'secret.txt'), 'outside the served directory');
  await symlink(join(base, 'secret.txt'), join(site, 'link-out.txt'));
  await symlink(join(site, 'assets', 'app.js'), join(site, 'link-in.js'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A request with the path exactly as given (no URL normalization of `..`). */
function raw(url: string, path: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { path, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request line written on the socket as is (paths node's client would refuse). */
function rawLine(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let out = '';
    s.on('data', (c: Buffer) => (out += c.toString('latin1')));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
}

describe('embedded API server: static files', () => {
  it('serves files under the prefix with content types, index.html for the directory, without the API token', async () => {
    server = await startApiServer({ token: 't', staticFiles: { directory: site } });
    const index = await raw(server.url, '/ui/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.text).toContain('<title>ui</title>');
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    const js = await raw(server.url, '/ui/assets/app.js?v=2');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.text).toBe('export const x = 1;\n');
    expect((await raw(server.url, '/ui/assets/style.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await raw(server.url, '/ui/assets/blob.bin')).headers['content-type']).toBe('application/octet-stream');
    expect((await raw(server.url, '/ui/%61ssets/app.js')).status).toBe(200);
    const head = await raw(server.url, '/ui/assets/app.js', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('20');
    expect(head.text).toBe('');
    // The API still wants its token.
    expect((await makeClient(server.url)('GET', '/api/v1/namespaces')).status).toBe(401);
  });

  it('redirects the bare prefix and directories to their slash form; 404 for what is not there', async () => {
    server = await startApiServer({ staticFiles: { directory: site, pathPrefix: '/dash/board/' } });
    const bare = await raw(server.url, '/dash/board?x=1');
    expect(bare.status).toBe(301);
    expect(bare.headers['location']).toBe('/dash/board/?x=1');
    const dir = await raw(server.url, '/dash/board/assets');
    expect(dir.status).toBe(301);
    expect(dir.headers['location']).toBe('/dash/board/assets/');
    expect((await raw(server.url, '/dash/board/assets/')).status).toBe(404); // no index.html, no listing
    expect((await raw(server.url, '/dash/board/nope.js')).status).toBe(404);
    expect((await raw(server.url, '/ui/index.html')).status).toBe(404); // only the configured prefix
  });

  it('refuses path traversal in every spelling', async () => {
    server = await startApiServer({ staticFiles: { directory: site } });
    const attempts = [
      '/ui/../secret.txt',
      '/ui/assets/../../secret.txt',
      '/ui/%2e%2e/secret.txt',
      '/ui/%2E%2E/secret.txt',
      '/ui/..%2fsecret.txt',
      '/ui/..%2Fsecret.txt',
      '/ui/assets%2f..%2f..%2fsecret.txt',
      '/ui/..%5csecret.txt',
      '/ui/..\\secret.txt',
      '/ui/%2e%2e%5csecret.txt',
      '/ui/index.html%00.js',
      '/ui//etc/passwd',
      '/ui/%2fetc%2fpasswd',
      '/ui/./index.html',
      '/ui/%ZZ',
    ];
    for (const path of attempts) {
      const res = await raw(server.url, path);
      expect([400, 404], path).toContain(res.status);
      expect(res.text, path).not.toContain('outside the served directory');
      expect(res.text, path).not.toContain('root:');
    }
    const line = await rawLine(server.port, '/ui/../../../../etc/passwd');
    expect(line).toMatch(/^HTTP\/1\.1 (400|404)/);
    expect(line).not.toContain('root:');
  });

  it('does not follow symbolic links out of the directory, nor serve hidden files', async () => {
    server = await startApiServer({ staticFiles: { directory: site } });
    const out = await raw(server.url, '/ui/link-out.txt');
    expect(out.status).toBe(404);
    expect(out.text).not.toContain('outside');
    expect((await raw(server.url, '/ui/link-in.js')).text).toBe('export const x = 1;\n');
    const hidden = await raw(server.url, '/ui/.env');
    expect(hidden.status).toBe(404);
    expect(hidden.text).not.toContain('SECRET');
  });

  it('bounds the file size and allows only GET and HEAD', async () => {
    server = await startApiServer({ staticFiles: { directory: site, maxFileBytes: 1024 } });
    const big = await raw(server.url, '/ui/big.txt');
    expect(big.status).toBe(403);
    expect(big.text).toMatch(/maxFileBytes \(1024\)/);
    const post = await raw(server.url, '/ui/index.html', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });

  it('serves pages next to a CORS-enabled API', async () => {
    server = await startApiServer({ staticFiles: { directory: site }, cors: { origins: ['http://localhost:5173'] } });
    expect((await raw(server.url, '/ui/')).status).toBe(200);
    expect((await makeClient(server.url)('GET', '/api/v1/namespaces')).status).toBe(200);
  });

  it('refuses prefixes that shadow the API or are not paths, and a directory that is not there', async () => {
    for (const pathPrefix of ['/api/', '/apis/', '/healthz/', '/openapi/', 'ui/', '/ui', '/', '/a/../b/', '/a//b/']) {
      await expect(startApiServer({ staticFiles: { directory: site, pathPrefix } }), pathPrefix).rejects.toBeInstanceOf(ApiServerConfigError);
    }
    await expect(startApiServer({ staticFiles: { directory: join(base, 'missing') } })).rejects.toThrow(/staticFiles.directory/);
    await expect(startApiServer({ staticFiles: { directory: join(site, 'index.html') } })).rejects.toThrow(/not a directory/);
    await expect(startApiServer({ staticFiles: { directory: site, maxFileBytes: 0 } })).rejects.toThrow(/maxFileBytes/);
  });
});
