/**
 * Hostile server, finding 7: a watch line that never ends was buffered without limit (1 GB sent:
 * RSS 1.2 GB, no error). Now a line longer than `maxWatchLineBytes` (default 16 MiB) fails the
 * watch with `WatchLineTooLongError` on the informer's error stream, the connection is dropped,
 * and nothing reaches the cache.
 */
import type http from 'node:http';
import { filter, firstValueFrom, map, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { DEFAULT_MAX_WATCH_LINE_BYTES, WatchLineTooLongError } from '../../src/client/watch-line-too-long-error.js';
import { WatchLineDecoder } from '../../src/client/watch-line-decoder.js';
import { ListWatchError } from '../../src/informer/list-watch-error.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { json, pod, podList, startFakeApiServer } from './fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** The server gives up after this much (the old code would have buffered it all). */
const SEND_AT_MOST = 64 * 1024 * 1024;

/** Streams one endless line (`{"type":"ADDED","object":{"x":"xxxx…`) with backpressure; resolves with the bytes written when the client drops it. */
function endlessLine(res: http.ServerResponse): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
      resolve(written);
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"type":"ADDED","object":{"x":"');
    const pump = (): void => {
      while (!closed && written < SEND_AT_MOST) {
        written += CHUNK.length;
        if (!res.write(CHUNK)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

async function run(scope: { maxWatchLineBytes?: number }) {
  let dropped: Promise<number> | undefined;
  const server = await startFakeApiServer((_req, res, seen) => {
    if (seen.query.get('watch') !== 'true') return json(res, 200, podList([pod('a', '5')], '5'));
    if (dropped !== undefined) return; // later watches: no answer
    dropped = endlessLine(res);
  });
  cleanup.push(() => server.close());
  const client = KubeClient.fromKubeConfig(server.kubeConfig, { retry: false });
  cleanup.push(() => client.close());
  const informer = sharedInformer({ client, resource: resources.pods, scope: { namespace: 'default', ...scope }, listWatch: { backoff: { initialMs: 60_000 }, streamingList: false } });
  const failure = firstValueFrom(
    informer.errors$.pipe(
      filter((e): e is ListWatchError => e instanceof ListWatchError),
      map((e) => e.cause),
      timeout(15_000),
    ),
  );
  const sub = informer.run$.subscribe({ error: () => undefined });
  cleanup.push(() => sub.unsubscribe());
  const cause = await failure;
  const written = await (dropped as Promise<number>);
  return { cause, written, informer };
}

describe('hostile: a watch line that never ends', () => {
  it('fails the watch with WatchLineTooLongError at maxWatchLineBytes and drops the connection', async () => {
    const limit = 1024 * 1024;
    const r = await run({ maxWatchLineBytes: limit });
    expect(r.cause).toBeInstanceOf(WatchLineTooLongError);
    expect(r.cause).toMatchObject({ code: 'CLIENT_WATCH_LINE_TOO_LONG', limitBytes: limit, offset: 0 });
    // what the server managed to write before the client hung up: the limit plus socket buffers
    expect(r.written).toBeLessThan(SEND_AT_MOST);
    expect(r.informer.store.list().map((p) => p.metadata?.name)).toEqual(['a']);
  });

  it('is bounded by default (16 MiB)', async () => {
    const r = await run({});
    expect(r.cause).toBeInstanceOf(WatchLineTooLongError);
    expect(r.cause).toMatchObject({ limitBytes: DEFAULT_MAX_WATCH_LINE_BYTES });
    expect(r.written).toBeLessThan(SEND_AT_MOST);
  });

  it('the decoder counts a line across chunks and inside one chunk, and still decodes lines up to the limit', () => {
    const events: unknown[] = [];
    const ok = new WatchLineDecoder({ maxLineBytes: 64 });
    const line = `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'abcdef' } } })}\n`;
    expect(line.length - 1).toBeLessThanOrEqual(64);
    ok.push(Buffer.from(line.slice(0, 10)), (e) => events.push(e));
    ok.push(Buffer.from(line.slice(10) + line), (e) => events.push(e));
    expect(events).toHaveLength(2);
    const inOne = new WatchLineDecoder({ maxLineBytes: 16 });
    expect(() => inOne.push(Buffer.from(line), () => undefined)).toThrow(WatchLineTooLongError);
    const split = new WatchLineDecoder({ maxLineBytes: 16 });
    split.push(Buffer.from('{"type":'), () => undefined);
    expect(() => split.push(Buffer.from('"ADDED","object":{}'), () => undefined)).toThrow(WatchLineTooLongError);
  });
});
