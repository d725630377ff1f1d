/**
 * Hostile server, finding 8: watch events and list items of another kind or namespace were cached
 * — a Secret `kube-system/db-pass` ended up in the Pod/default cache, a Deployment replaced Pod
 * `default/a`. Now each is skipped and reported as `UnexpectedObjectError` (on the informer's
 * error stream, naming only the object's identity, never its content) and the cache keeps the
 * Pods of `default` only.
 */
import { inspect } from 'node:util';
import { filter, firstValueFrom, map, take, timeout, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/api/builtin-resources.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { ListWatchError } from '../../src/informer/list-watch-error.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import { UnexpectedObjectError } from '../../src/reflector/reflector-errors.js';
import { json, pod, podList, startFakeApiServer } from './fake-api-server.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const SECRET_VALUE = 'c3VwZXItc2VjcmV0LXBhc3N3b3Jk';
const secret = { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'db-pass', namespace: 'kube-system', resourceVersion: '6', uid: 's1' }, data: { password: SECRET_VALUE } };
const deployment = { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'a', namespace: 'default', resourceVersion: '7', uid: 'd1' }, spec: { replicas: 3 } };
const otherNamespacePod = pod('b', '8', 'kube-system');
const podOfOtherVersion = { ...pod('c', '9'), apiVersion: 'v2' };

async function informerAgainst(listItems: unknown[], watchEvents: unknown[], expectedErrors: number) {
  const server = await startFakeApiServer((_req, res, seen) => {
    if (seen.query.get('watch') !== 'true') return json(res, 200, podList(listItems, '5'));
    if (server.requests.filter((r) => r.query.get('watch') === 'true').length > 1) return; // later watches: no answer
    res.writeHead(200, { 'content-type': 'application/json' });
    for (const e of watchEvents) res.write(`${JSON.stringify(e)}\n`);
    // the watch stays open
  });
  cleanup.push(() => server.close());
  const client = KubeClient.fromKubeConfig(server.kubeConfig, { retry: false });
  cleanup.push(() => client.close());
  const informer = sharedInformer({ client, resource: resources.pods, scope: { namespace: 'default' }, listWatch: { streamingList: false } });
  const errors = firstValueFrom(
    informer.errors$.pipe(
      filter((e): e is ListWatchError => e instanceof ListWatchError),
      map((e) => e.cause),
      take(expectedErrors),
      toArray(),
      timeout(10_000),
    ),
  );
  const sub = informer.run$.subscribe({ error: () => undefined });
  cleanup.push(() => sub.unsubscribe());
  const causes = await errors;
  // one more good event proves the stream went on past the rejected ones
  for (let waited = 0; informer.store.get('default/last') === undefined; waited += 10) {
    if (waited > 10_000) throw new Error('the event after the rejected ones never reached the cache');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { causes, informer };
}

describe('hostile: objects of another kind, version or namespace', () => {
  it('watch events of another kind, version or namespace are skipped, reported and never cached', async () => {
    const r = await informerAgainst(
      [pod('a', '5')],
      [
        { type: 'ADDED', object: secret },
        { type: 'MODIFIED', object: deployment },
        { type: 'ADDED', object: otherNamespacePod },
        { type: 'ADDED', object: podOfOtherVersion },
        { type: 'ADDED', object: pod('last', '10') },
      ],
      4,
    );
    expect(r.causes.every((c) => c instanceof UnexpectedObjectError)).toBe(true);
    expect(r.causes.map((c) => (c as UnexpectedObjectError).object)).toEqual([
      'v1/Secret kube-system/db-pass',
      'apps/v1/Deployment default/a',
      'v1/Pod kube-system/b',
      'v2/Pod default/c',
    ]);
    expect(r.causes.map((c) => (c as UnexpectedObjectError).mismatch)).toEqual(['type', 'type', 'namespace', 'type']);
    for (const c of r.causes) expect(inspect(c, { depth: 5 }) + (c as Error).message).not.toContain(SECRET_VALUE);
    const cached = r.informer.store.list().map((p) => `${p.kind ?? ''}:${p.metadata?.namespace}/${p.metadata?.name}`);
    expect(cached.sort()).toEqual(['Pod:default/a', 'Pod:default/last']);
    expect(r.informer.store.get('kube-system/db-pass')).toBeUndefined();
  });

  it('list items of another kind or namespace are skipped and reported once per list', async () => {
    const r = await informerAgainst([pod('a', '5'), secret, otherNamespacePod], [{ type: 'ADDED', object: pod('last', '10') }], 1);
    const [cause] = r.causes;
    expect(cause).toBeInstanceOf(UnexpectedObjectError);
    expect(cause).toMatchObject({ code: 'REFLECTOR_OBJECT_UNEXPECTED', object: 'v1/Secret kube-system/db-pass', skipped: 2 });
    expect(r.informer.store.list().map((p) => p.metadata?.name).sort()).toEqual(['a', 'last']);
  });
});

describe('hostile: what an UnexpectedObjectError quotes', () => {
  it('only well-formed names, kinds and versions; anything else (such as a token) shows as <invalid>', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.Hostile-Token.sig';
    const err = new UnexpectedObjectError(
      'watch ADDED event',
      { apiVersion: `v1 ${token}`, kind: token, metadata: { name: token, namespace: 'default' } },
      { types: [{ apiVersion: 'v1', kind: 'Pod' }] },
      'type',
    );
    expect(err.object).toBe('<invalid>/<invalid> default/<invalid>');
    expect(err.message + inspect(err, { depth: 5 })).not.toContain(token);
  });
});
