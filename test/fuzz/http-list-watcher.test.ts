import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { report } from './report.js';

/**
 * Fuzzing the HTTP transport with what a broken server or proxy could answer: random status
 * codes, content types and bodies for lists (bodies that are not lists, lists with odd fields) and
 * watches (random bytes, truncated JSON). The property: a list gives a page that keeps the
 * ListWatcher contract (items an array, resourceVersion a string, continue a string or absent) or
 * a typed error; a watch gives events or a typed error; never a programming error.
 */

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

const bug = (e: unknown): boolean => e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;
const describeError = (e: unknown): string => (e instanceof Error ? `${e.constructor.name} ${e.name}: ${e.message}` : String(e));

const odd = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 5 }), fc.boolean(), fc.constant([]), fc.constant({}));
const listBody = fc.oneof(
  fc.record({ kind: fc.constant('ConfigMapList'), apiVersion: fc.constant('v1'), metadata: fc.oneof(fc.record({ resourceVersion: fc.oneof(fc.constant('12'), odd), continue: fc.oneof(fc.constant('tok'), odd), remainingItemCount: fc.oneof(fc.nat(), odd) }, { requiredKeys: [] }), odd), items: fc.oneof(fc.array(fc.oneof(fc.record({ metadata: fc.record({ name: fc.constant('a'), resourceVersion: fc.constant('3') }) }), odd), { maxLength: 3 }), odd) }, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '{', '{"items":[', 'null', '[]', '<html>502 Bad Gateway</html>'),
);
const status = fc.oneof({ weight: 3, arbitrary: fc.constant(200) }, { weight: 1, arbitrary: fc.constantFrom(201, 204, 301, 400, 401, 403, 404, 409, 410, 429, 500, 502, 503, 504) });
const contentType = fc.constantFrom('application/json', 'text/html', 'text/plain', '');

describe('fuzz: HTTP list/watch transport against a misbehaving server', () => {
  let server: Server;
  let answer: Answer = { status: 200, contentType: 'application/json', body: '{}' };
  let client: KubeClient;
  const resource = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const headers: Record<string, string> = answer.contentType === '' ? {} : { 'Content-Type': answer.contentType };
      res.writeHead(answer.status, headers);
      res.end(answer.status === 204 ? undefined : answer.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    client = KubeClient.fromKubeConfig(kc);
  });
  afterAll(async () => {
    client.close();
    await new Promise((r) => server.close(r));
  });

  it('list: a contract-keeping page or a typed error', async () => {
    let runs = 0;
    let pages = 0;
    const errors = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(status, contentType, listBody, async (code, type, body) => {
        runs++;
        answer = { status: code, contentType: type, body };
        try {
          const page = await firstValueFrom(client.listWatcher(resource, { namespace: 'ns' }).list({ limit: 5 }));
          pages++;
          expect(Array.isArray(page.items)).toBe(true);
          expect(typeof page.resourceVersion).toBe('string');
          if (page.continue !== undefined) expect(typeof page.continue).toBe('string');
          if (page.remainingItemCount !== undefined) expect(typeof page.remainingItemCount).toBe('number');
        } catch (e) {
          expect(bug(e), `${code} ${type} ${body} → ${describeError(e)}`).toBe(false);
          const n = e instanceof Error ? e.name : typeof e;
          errors.set(n, (errors.get(n) ?? 0) + 1);
        }
      }),
      { numRuns: 400 },
    );
    report('HTTP transport / list answers', runs, `${pages} pages, errors ${[...errors].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  });

  it('watch: events or a typed error', async () => {
    let runs = 0;
    let events = 0;
    const watchBody = fc.oneof(
      fc.array(fc.oneof(fc.record({ type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'), object: fc.oneof(fc.record({ metadata: fc.record({ name: fc.constant('a'), resourceVersion: fc.constant('4') }) }), odd) }).map((e) => JSON.stringify(e)), fc.string({ maxLength: 20 })), { maxLength: 4 }).map((lines) => lines.join('\n')),
      fc.string({ unit: 'binary', maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(status, contentType, watchBody, async (code, type, body) => {
        runs++;
        answer = { status: code, contentType: type, body };
        try {
          events += (await lastValueFrom(client.listWatcher(resource, { namespace: 'ns' }).watch({ resourceVersion: '1' }).pipe(toArray()))).length;
        } catch (e) {
          expect(bug(e), `${code} ${type} ${JSON.stringify(body)} → ${describeError(e)}`).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
    report('HTTP transport / watch answers', runs, `${events} events`);
  });
});
