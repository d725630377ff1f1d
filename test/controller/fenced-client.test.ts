/**
 * `fencedClient`, the view of a KubeClient that `ctx.client` and `ctx.objects()` are: every
 * request carries the reconcile's signal (combined with the caller's), and once the signal aborted
 * with a `LeadershipLostError` writes are refused with `FencedWriteError` before reaching the
 * connection; other requests fail with the signal's reason, also unsent.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { KubeConnection, KubeRequest } from '../../src/client/kube-connection.js';
import { FencedWriteError, fencedClient } from '../../src/controller/fenced-client.js';
import { LeadershipLostError } from '../../src/leader-election/leadership-lost-error.js';
import { ReconcileTimeoutError } from '../../src/workqueue/reconcile-timeout-error.js';

const CONFIG_MAPS: ResourceType<KubeObject> = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name } });

/** A connection that records what reaches it; answers at once unless the signal it got aborted. */
function recordingConnection() {
  const sent: { method: string; path: string; signal: AbortSignal | undefined }[] = [];
  const connection = {
    request: async (req: KubeRequest, signal?: AbortSignal): Promise<unknown> => {
      signal?.throwIfAborted();
      sent.push({ method: req.method ?? 'GET', path: req.path, signal });
      return cm('x');
    },
  } as unknown as KubeConnection;
  return { client: new KubeClient(connection), sent };
}

describe('fencedClient', () => {
  it('passes requests through with the reconcile signal, combined with the caller’s', async () => {
    const { client, sent } = recordingConnection();
    const reconcile = new AbortController();
    const fenced = fencedClient(client, reconcile.signal);
    await fenced.objects(CONFIG_MAPS, 'ns').get('a');
    const own = new AbortController();
    await fenced.objects(CONFIG_MAPS, 'ns').create(cm('b'), { signal: own.signal });
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/namespaces/ns/configmaps/a', 'POST /api/v1/namespaces/ns/configmaps']);
    expect(sent[0]?.signal).toBe(reconcile.signal);
    const combined = sent[1]?.signal as AbortSignal;
    expect(combined.aborted).toBe(false);
    own.abort(new Error('caller gave up'));
    expect(combined.aborted).toBe(true);
    expect(fenced).toBeInstanceOf(KubeClient);
  });

  it('refuses writes after lost leadership with FencedWriteError, before they reach the connection', async () => {
    const { client, sent } = recordingConnection();
    const reconcile = new AbortController();
    const fenced = fencedClient(client, reconcile.signal);
    const lost = new LeadershipLostError();
    reconcile.abort(lost);
    const cms = fenced.objects(CONFIG_MAPS, 'ns');
    for (const write of [
      () => cms.create(cm('a')),
      () => cms.replace(cm('a')),
      () => cms.patch('a', { data: {} }),
      () => cms.delete('a'),
      () => cms.apply({ metadata: { name: 'a' } }, { fieldManager: 'm' }),
      () => fenced.connection.request({ method: 'PUT', path: '/x', body: {} }),
    ]) {
      const err = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FencedWriteError);
      expect((err as FencedWriteError).cause).toBe(lost);
    }
    await expect(cms.get('a')).rejects.toBe(lost);
    expect(sent).toEqual([]);
  });

  it('fails every request with the signal reason, unsent, after any other abort (a timeout)', async () => {
    const { client, sent } = recordingConnection();
    const reconcile = new AbortController();
    const fenced = fencedClient(client, reconcile.signal);
    const timeout = new ReconcileTimeoutError(100);
    reconcile.abort(timeout);
    await expect(fenced.objects(CONFIG_MAPS, 'ns').patch('a', {})).rejects.toBe(timeout);
    await expect(fenced.objects(CONFIG_MAPS, 'ns').get('a')).rejects.toBe(timeout);
    expect(sent).toEqual([]);
  });
});
