import { Agent, request } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';

/** A raw HTTP answer. */
export interface Raw {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

/** Minimal HTTP client over node:http(s) for the server's own tests. */
export function makeClient(base: string, opts: { token?: string; ca?: string } = {}) {
  const agent = opts.ca !== undefined ? new Agent({ ca: opts.ca }) : undefined;
  return function call(method: string, path: string, body?: unknown, contentType = 'application/json', extraHeaders: Record<string, string> = {}): Promise<Raw> {
    const url = new URL(path, base);
    const data = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const headers: Record<string, string> = { ...extraHeaders };
    if (opts.token !== undefined) headers['Authorization'] = `Bearer ${opts.token}`;
    if (data !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(Buffer.byteLength(data));
    }
    return new Promise((resolve, reject) => {
      const fn = url.protocol === 'https:' ? request : httpRequest;
      const req = fn(url, { method, headers, ...(agent ? { agent } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (data !== undefined) req.write(data);
      req.end();
    });
  };
}

/** A watch stream read line by line. */
export interface WatchStream {
  readonly status: number;
  /** Resolves with the next `n` events (waits for them). */
  next(n?: number): Promise<{ type: string; object: Record<string, unknown> & { metadata?: Record<string, unknown> } }[]>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** Events received so far (including ones already taken by next). */
  readonly all: { type: string; object: Record<string, unknown> }[];
  close(): void;
}

/** Opens a watch (GET with the given query) and parses JSON lines. */
export function openWatch(base: string, path: string, opts: { token?: string; ca?: string; headers?: Record<string, string> } = {}): Promise<WatchStream> {
  const url = new URL(path, base);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token !== undefined) headers['Authorization'] = `Bearer ${opts.token}`;
  const agent = opts.ca !== undefined ? new Agent({ ca: opts.ca }) : undefined;
  return new Promise((resolve, reject) => {
    const fn = url.protocol === 'https:' ? request : httpRequest;
    const req = fn(url, { method: 'GET', headers, ...(agent ? { agent } : {}) }, (res) => {
      const all: { type: string; object: Record<string, unknown> }[] = [];
      let taken = 0;
      let buf = '';
      let waiter: (() => void) | undefined;
      let endResolve!: () => void;
      const ended = new Promise<void>((r) => (endResolve = r));
      let done = false;
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim() !== '') all.push(JSON.parse(line) as { type: string; object: Record<string, unknown> });
        }
        waiter?.();
      });
      const finish = () => {
        done = true;
        endResolve();
        waiter?.();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve({
        status: res.statusCode ?? 0,
        all,
        ended,
        next(n = 1) {
          return new Promise((resolveNext, rejectNext) => {
            const check = () => {
              if (all.length - taken >= n) {
                const out = all.slice(taken, taken + n);
                taken += n;
                waiter = undefined;
                resolveNext(out as never);
              } else if (done) {
                waiter = undefined;
                rejectNext(new Error(`watch ended after ${all.length} events; wanted ${n} more from ${taken}: ${JSON.stringify(all.slice(taken).map((e) => e.type))}`));
              }
            };
            waiter = check;
            check();
          });
        },
        close() {
          req.destroy();
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}
