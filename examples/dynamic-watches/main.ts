/**
 * The stamper on the embedded API server (real HTTP, real time): a labelled CRD is created after
 * the controller started — its objects get stamped; an unlabelled one is ignored; the labelled CRD
 * is deleted — its informer stops after the grace and nothing of it is reconciled any more; it is
 * created again — watched again.
 *
 *   npx tsx --conditions=source examples/dynamic-watches/main.ts
 */
import { pathToFileURL } from 'node:url';
import { InformerFactory, KubeClient, type KubeObject } from 'rxkube';
import { startApiServer } from '@rxkube/testkit';
import { STAMP_LABEL, STAMPED, stampController } from './stamp-controller.js';

/** A namespaced CRD `<plural>.example.com` of kind `kind`, with or without the stamper's label. */
export function crdOf(kind: string, labelled: boolean): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com`, labels: labelled ? { [STAMP_LABEL]: 'true' } : {} },
    spec: {
      group: 'example.com',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  } as KubeObject;
}

const objectOf = (kind: string, name: string): KubeObject =>
  ({ apiVersion: 'example.com/v1', kind, metadata: { namespace: 'default', name }, spec: { size: 1 } }) as KubeObject;

/** What the demo saw. */
export interface DynamicWatchesDemoResult {
  /** Every reconcile that stamped (or found stamped) an object, in order: `Kind/namespace/name`. */
  readonly stamped: readonly string[];
  /** Reconciles of Gadgets after the Gadget CRD was deleted and before it came back. */
  readonly gadgetsAfterDelete: number;
  /** Informers held by dynamic watches right after the grace following the delete. */
  readonly leasedAfterDelete: readonly string[];
  /** The stamp of the Gizmo (unlabelled CRD): none. */
  readonly gizmoStamp: string | undefined;
}

async function waitFor(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs the scenario. */
export async function runDynamicWatchesDemo(write: (line: string) => void = console.log): Promise<DynamicWatchesDemoResult> {
  const server = await startApiServer({ namespaces: ['default'] });
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  const stop = new AbortController();
  const GRACE_MS = 300;
  try {
    const informers = new InformerFactory(client, { stopGraceMs: GRACE_MS });
    const stamped: string[] = [];
    const ctl = stampController({ client, informers, onStamped: (w) => stamped.push(w) });
    const running = ctl.start(stop.signal);
    const stampOf = (kind: string, name: string): string | undefined =>
      (server.get('example.com/v1', kind, name, 'default')?.metadata?.annotations as Record<string, string> | undefined)?.[STAMPED];

    write('── the labelled Gadget CRD is created after the start: its objects are stamped');
    server.create(crdOf('Gadget', true));
    server.create(crdOf('Gizmo', false));
    await waitFor('the Gadget kind to be served', () => server.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gadgets.example.com') !== undefined);
    server.create(objectOf('Gadget', 'g1'));
    server.create(objectOf('Gizmo', 'z1'));
    await waitFor('g1 stamped', () => stampOf('Gadget', 'g1') === '1');
    write(`   g1: ${STAMPED}=${stampOf('Gadget', 'g1')}`);

    // Let the echo of the stamp (its watch event, a no-op reconcile) pass before the delete.
    await new Promise((r) => setTimeout(r, GRACE_MS));
    write('── the Gadget CRD is deleted: dropped, its informer stopped after the grace');
    const beforeDelete = stamped.length;
    server.delete('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gadgets.example.com');
    await waitFor('the Gadget informer to be freed', () => informers.leased().length === 0, GRACE_MS + 5_000);
    const leasedAfterDelete = informers.leased().map((s) => s.informer.name);
    const gadgetsAfterDelete = stamped.slice(beforeDelete).filter((s) => s.startsWith('Gadget/')).length;
    write(`   informers held by dynamic watches: ${leasedAfterDelete.length}`);

    write('── the Gadget CRD comes back: watched again');
    server.create(crdOf('Gadget', true));
    await waitFor('the Gadget kind to be served again', () => server.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'gadgets.example.com') !== undefined);
    await waitFor('g2 to be creatable', () => {
      try {
        server.create(objectOf('Gadget', 'g2'));
        return true;
      } catch {
        return false;
      }
    });
    await waitFor('g2 stamped', () => stampOf('Gadget', 'g2') === '1');
    write(`   g2: ${STAMPED}=${stampOf('Gadget', 'g2')}`);
    stop.abort();
    await running;
    return { stamped, gadgetsAfterDelete, leasedAfterDelete, gizmoStamp: stampOf('Gizmo', 'z1') };
  } finally {
    stop.abort();
    client.close();
    await server.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runDynamicWatchesDemo();
