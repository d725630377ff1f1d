import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { ApiServerConfigError } from './server-errors.js';

/**
 * Files of one directory served under a path prefix (`/ui/index.html`), so a test or demo page
 * comes from the same origin as the API it calls. Only GET and HEAD; no authentication (a browser
 * navigating to a page sends no bearer token); no listing of directories (a directory answers its
 * `index.html`); no path outside the directory (`..`, encoded slashes, backslashes, NUL bytes and
 * symbolic links leading out are refused), no hidden files (a segment starting with `.`).
 */
export interface StaticFilesOptions {
  /** The directory to serve. Must exist when the server starts. */
  readonly directory: string;
  /**
   * The URL path the files are served under: starts and ends with `/` (default `/ui/`); may not
   * shadow the API (`/api/`, `/apis/`, `/openapi/`, `/version`, `/healthz`, `/livez`, `/readyz`).
   */
  readonly pathPrefix?: string;
  /** Largest file served; a larger one answers 403. Default 16 MiB. */
  readonly maxFileBytes?: number;
}

/** Serves the files of {@link StaticFilesOptions}. */
export interface StaticFileServer {
  /** The path prefix, with its trailing slash. */
  readonly pathPrefix: string;
  /** Whether a request path (without query) is this server's: the prefix, or the prefix without its trailing slash. */
  owns(pathname: string): boolean;
  /** Answers one request; never throws. */
  serve(req: IncomingMessage, res: ServerResponse): void;
}

const API_ROOTS = new Set(['api', 'apis', 'openapi', 'version', 'healthz', 'livez', 'readyz', 'metrics', 'logs', '.well-known']);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
};

/** The Content-Type a file is served with, by its extension (`application/octet-stream` for others). */
export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

function checkedPrefix(prefix: string): string {
  const first = prefix.split('/')[1] ?? '';
  const segments = prefix.split('/').slice(1, -1);
  if (!prefix.startsWith('/') || !prefix.endsWith('/') || prefix.length < 3 || segments.some((s) => s === '' || s === '.' || s === '..' || /[?#%\\]/.test(s))) {
    throw new ApiServerConfigError(`staticFiles.pathPrefix must look like /ui/ (starts and ends with /, plain segments), got "${prefix}"`, { option: 'staticFiles.pathPrefix' });
  }
  if (API_ROOTS.has(first)) {
    throw new ApiServerConfigError(`staticFiles.pathPrefix "${prefix}" would shadow the API's /${first}`, { option: 'staticFiles.pathPrefix' });
  }
  return prefix;
}

class HttpRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

function sendText(res: ServerResponse, code: number, text: string, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(`${text}`);
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The segments of `rest` (the path after the prefix, still percent-encoded), decoded; refuses what
 * could leave the directory or name a hidden file.
 */
function decodedSegments(rest: string): string[] {
  const raw = rest.split('/');
  const out: string[] = [];
  for (const [i, r] of raw.entries()) {
    let s: string;
    try {
      s = decodeURIComponent(r);
    } catch {
      throw new HttpRefusal(400, 'malformed percent-encoding in the path');
    }
    if (s === '' && i === raw.length - 1) continue; // trailing slash
    if (s === '' || s === '.' || s === '..' || /[/\\\0]/.test(s)) throw new HttpRefusal(400, 'path refused: empty, dot or dot-dot segment, or an encoded slash, backslash or NUL');
    if (s.startsWith('.')) throw new HttpRefusal(404, 'not found');
    out.push(s);
  }
  return out;
}

/** Starts serving `options.directory`; throws {@link ApiServerConfigError} for a prefix or directory that cannot be used. */
export async function staticFileServer(options: StaticFilesOptions): Promise<StaticFileServer> {
  const pathPrefix = checkedPrefix(options.pathPrefix ?? '/ui/');
  const maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
  if (!Number.isInteger(maxFileBytes) || maxFileBytes <= 0) {
    throw new ApiServerConfigError(`staticFiles.maxFileBytes must be a positive integer, got ${maxFileBytes}`, { option: 'staticFiles.maxFileBytes' });
  }
  let root: string;
  try {
    root = await realpath(resolve(options.directory));
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new ApiServerConfigError(`staticFiles.directory ${options.directory} cannot be served: ${(e as Error).message}`, { option: 'staticFiles.directory', cause: e });
  }
  const bare = pathPrefix.slice(0, -1);

  const readFileAt = async (segments: readonly string[], wantsDirectory: boolean, pathname: string, search: string): Promise<{ path: string; bytes: Buffer }> => {
    const lexical = resolve(root, ...segments);
    if (!inside(root, lexical)) throw new HttpRefusal(400, 'path refused: outside the served directory');
    let real: string;
    try {
      real = await realpath(lexical);
    } catch {
      throw new HttpRefusal(404, 'not found');
    }
    // A symbolic link inside the directory may point outside it.
    if (!inside(root, real)) throw new HttpRefusal(404, 'not found');
    const info = await stat(real);
    if (info.isDirectory()) {
      if (!wantsDirectory) throw new HttpRefusal(301, 'moved', { Location: `${pathname}/${search}` });
      return readFileAt([...segments, 'index.html'], false, pathname, search);
    }
    if (!info.isFile()) throw new HttpRefusal(404, 'not found');
    const handle = await open(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch(() => {
      throw new HttpRefusal(404, 'not found');
    });
    try {
      // Size from the open file, not the earlier stat: the file may have been replaced since.
      const size = (await handle.stat()).size;
      if (size > maxFileBytes) throw new HttpRefusal(403, `file larger than the server's staticFiles.maxFileBytes (${maxFileBytes})`);
      const bytes = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const { bytesRead } = await handle.read(bytes, read, size - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return { path: real, bytes: bytes.subarray(0, read) };
    } finally {
      await handle.close();
    }
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = req.url ?? '/';
    const q = raw.search(/[?#]/);
    const pathname = q < 0 ? raw : raw.slice(0, q);
    const search = q < 0 ? '' : raw.slice(q);
    if (pathname === bare) throw new HttpRefusal(301, 'moved', { Location: `${pathname}/${search}` });
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') throw new HttpRefusal(405, `method ${method} not allowed on static files`, { Allow: 'GET, HEAD' });
    const rest = pathname.slice(pathPrefix.length);
    const segments = decodedSegments(rest);
    const file = await readFileAt(segments, rest === '' || rest.endsWith('/'), pathname, search);
    res.writeHead(200, {
      'Content-Type': contentTypeOf(file.path),
      'Content-Length': file.bytes.length,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : file.bytes);
  };

  return {
    pathPrefix,
    owns: (pathname) => pathname === bare || pathname.startsWith(pathPrefix),
    serve(req, res) {
      req.resume();
      answer(req, res).catch((e: unknown) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        if (e instanceof HttpRefusal) sendText(res, e.code, `${e.message}\n`, e.headers);
        else sendText(res, 500, `static file error (${(e as NodeJS.ErrnoException).code ?? 'unknown'})\n`);
      });
    },
  };
}
