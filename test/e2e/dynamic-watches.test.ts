/**
 * Tier 3: dynamic watches on a real kube-apiserver (KUBECONFIG set by .ci/run): the stamper
 * (examples/dynamic-watches) watches every CRD kind labelled for it. A labelled CRD created after
 * the start → its objects are reconciled; the CRD deleted → nothing of it is reconciled any more
 * and its informer is stopped after the grace (no watch of that resource left open).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { InformerFactory } from '../../src/informer/informer-factory.js';
import type { SharedInformer } from '../../src/informer/shared-informer-interface.js';
import { crdOf } from '../../examples/dynamic-watches/main.js';
import { STAMPED, stampController } from '../../examples/dynamic-watches/stamp-controller.js';
import { hasCluster, sleep } from './helpers/cluster.js';

const CRDS: ResourceType = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };
const NAMESPACES: ResourceType = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false };
const GRACE_MS = 1000;

async function waitFor(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe.skipIf(!hasCluster)('dynamic watches against a real kube-apiserver', () => {
  const suffix = randomBytes(3).toString('hex');
  const ns = `dyn-e2e-${suffix}`;
  const kind = `Gadget${suffix}`;
  const crd = crdOf(kind, true);
  const crdName = crd.metadata?.name as string;
  const type: ResourceType = { apiVersion: 'example.com/v1', kind, plural: `${kind.toLowerCase()}s`, namespaced: true };
  const client = KubeClient.fromDefault();
  const writer = KubeClient.fromDefault();
  const stop = new AbortController();

  afterAll(async () => {
    stop.abort();
    await writer.objects(CRDS).delete(crdName, { ignoreNotFound: true }).catch(() => undefined);
    await writer.objects(NAMESPACES).delete(ns, { ignoreNotFound: true }).catch(() => undefined);
    client.close();
    writer.close();
  });

  it('a labelled CRD created after the start is reconciled; deleted, it is dropped and its informer stopped', async () => {
    await writer.objects(NAMESPACES).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const informers = new InformerFactory(client, { stopGraceMs: GRACE_MS });
    const stamped: string[] = [];
    const running = stampController({ client, informers, onStamped: (w) => stamped.push(w) }).start(stop.signal);

    await writer.objects(CRDS).create(crd);
    await waitFor('the CRD to be Established', async () => {
      const got = (await writer.objects(CRDS).get(crdName)) as KubeObject & { status?: { conditions?: { type: string; status: string }[] } };
      return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    });
    await waitFor('the kind to accept objects', async () =>
      writer
        .objects(type, ns)
        .create({ apiVersion: 'example.com/v1', kind, metadata: { name: 'g1' }, spec: { size: 1 } } as KubeObject)
        .then(() => true, () => false),
    );
    const stampOf = async (): Promise<string | undefined> => (await writer.objects(type, ns).get('g1')).metadata?.annotations?.[STAMPED];
    await waitFor('g1 stamped', async () => (await stampOf()) === '1');
    const informer = informers.leased()[0]?.informer as SharedInformer | undefined;
    expect(informer?.isRunning).toBe(true);

    await sleep(GRACE_MS); // the stamp's echo (a no-op reconcile) passes
    const before = stamped.length;
    await writer.objects(CRDS).delete(crdName);
    await waitFor('the informer to be freed', () => informers.leased().length === 0, GRACE_MS + 60_000);
    expect(informer?.isRunning).toBe(false); // no watch of the resource open any more
    expect(informer?.store.size).toBe(0);
    await sleep(GRACE_MS);
    expect(stamped.slice(before).filter((s) => s.startsWith(`${kind}/`))).toEqual([]);
    stop.abort();
    await running;
  });
});
