/** createOrUpdate / createOrPatch and retryOnConflict against the embedded API server. */
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { ApiError, isConflict } from '../../src/client/api-error.js';
import { mergePatchOf } from '../../src/client/create-or-update.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { retryOnConflict } from '../../src/client/retry-on-conflict.js';
import type { ApiServer } from '../../packages/testkit/src/api-server/start-api-server.js';
import { useEmbeddedServer } from '../helpers/embedded-server.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
interface Deployment extends KubeObject {
  spec?: { replicas?: number; selector?: unknown; template?: unknown };
  status?: { observedGeneration?: number; replicas?: number };
}
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' };

let server: ApiServer;
let client: KubeClient;
useEmbeddedServer((s, c) => {
  server = s;
  client = c;
});

describe('createOrUpdate', () => {
  it('creates, then updates only when the mutation changed something', async () => {
    const cms = client.objects<ConfigMap>(CM, 'default', { fieldManager: 'ensure' });
    const desired = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cu1' } };
    const setMode = (mode: string) => (cm: ConfigMap) => {
      cm.data = { ...cm.data, mode };
    };
    const first = await cms.createOrUpdate(desired, setMode('fast'));
    expect(first.result).toBe('created');
    expect(first.object.data).toEqual({ mode: 'fast' });
    const same = await cms.createOrUpdate(desired, setMode('fast'));
    expect(same).toMatchObject({ result: 'unchanged' });
    expect(same.object.metadata?.resourceVersion).toBe(first.object.metadata?.resourceVersion);
    const changed = await cms.createOrUpdate(desired, setMode('slow'));
    expect(changed.result).toBe('updated');
    expect(server.get('v1', 'ConfigMap', 'cu1', 'default')).toMatchObject({ data: { mode: 'slow' } });
    // The field manager of the client is recorded.
    expect(changed.object.metadata?.managedFields).toEqual([expect.objectContaining({ manager: 'ensure', operation: 'Update' })]);
  });

  it('refuses a mutation that renames the object', async () => {
    const cms = client.objects<ConfigMap>(CM, 'default');
    await expect(cms.createOrUpdate({ metadata: { name: 'cu2' } }, (cm) => void (cm.metadata = { name: 'other' }))).rejects.toThrow(TypeError);
  });

  it('an update racing another writer fails with 409; retryOnConflict decides again and wins', async () => {
    const cms = client.objects<ConfigMap>(CM, 'default');
    await cms.create({ metadata: { name: 'cu3' }, data: { n: '0' } });
    let raced = false;
    const outcome = await retryOnConflict(async (attempt) => {
      return cms.createOrUpdate({ metadata: { name: 'cu3' } }, (cm) => {
        if (!raced) {
          raced = true; // someone else writes between our read and our write
          server.update({ ...(server.get('v1', 'ConfigMap', 'cu3', 'default') as ConfigMap), data: { n: '10' } });
        }
        cm.data = { n: String(Number(cm.data?.n ?? 0) + 1), attempt: String(attempt) };
      });
    });
    expect(outcome.result).toBe('updated');
    expect(outcome.object.data).toEqual({ n: '11', attempt: '2' });
  });
});

describe('createOrPatch', () => {
  it('patches only the changed fields, and status through the subresource', async () => {
    const deployments = client.objects<Deployment>(DEPLOY, 'default');
    const spec = { replicas: 1, selector: { matchLabels: { app: 'p' } }, template: { metadata: { labels: { app: 'p' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } };
    const created = await deployments.createOrPatch({ metadata: { name: 'cp1' } }, (d) => void (d.spec = spec));
    expect(created.result).toBe('created');
    server.requests.clear();
    const updated = await deployments.createOrPatch({ metadata: { name: 'cp1' } }, (d) => {
      d.spec!.replicas = 3;
      d.status = { observedGeneration: 1, replicas: 3 };
    });
    expect(updated.result).toBe('updated');
    expect(updated.object).toMatchObject({ spec: { replicas: 3 }, status: { observedGeneration: 1, replicas: 3 } });
    const patches = server.requests.filter({ method: 'PATCH' }).map((r) => r.path);
    expect(patches).toEqual(['/apis/apps/v1/namespaces/default/deployments/cp1', '/apis/apps/v1/namespaces/default/deployments/cp1/status']);
    expect((await deployments.createOrPatch({ metadata: { name: 'cp1' } }, (d) => void (d.spec!.replicas = 3))).result).toBe('unchanged');
  });

  it('mergePatchOf: changed fields, removals as null, lists whole', () => {
    expect(mergePatchOf({ a: 1, b: { c: 1, d: 2 }, l: [1, 2] }, { a: 1, b: { c: 2 }, l: [1, 2, 3], e: 'x' })).toEqual({ b: { c: 2, d: null }, l: [1, 2, 3], e: 'x' });
    expect(mergePatchOf({ a: [1] }, { a: [1] })).toBeUndefined();
  });
});

describe('retryOnConflict', () => {
  it('retries conflicts up to steps, with waits on the scheduler; other errors at once', async () => {
    const scheduler = new VirtualTimeScheduler();
    const conflict = new ApiError({ code: 409, reason: 'Conflict' });
    let calls = 0;
    const pending = retryOnConflict(
      async () => {
        calls++;
        throw conflict;
      },
      { scheduler, steps: 3, delayMs: 10, factor: 5, jitter: 0 },
    ).catch((e: unknown) => e);
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      scheduler.flush();
    }
    expect(await pending).toBe(conflict);
    expect(calls).toBe(3);
    expect(scheduler.now()).toBe(60); // 10 + 50
    const other = new Error('boom');
    await expect(retryOnConflict(async () => Promise.reject(other))).rejects.toBe(other);
    expect(isConflict(conflict)).toBe(true);
  });

  it('an aborted signal stops the waiting', async () => {
    const abort = new AbortController();
    const pending = retryOnConflict(async () => Promise.reject(new ApiError({ code: 409, reason: 'Conflict' })), { signal: abort.signal, delayMs: 60_000 });
    abort.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
  });
});
