/**
 * The namespace controller of kube-controller-manager: for a namespace being deleted that still
 * carries the `kubernetes` finalizer in `spec.finalizers`, deletes every namespaced object in it
 * (each discovered resource), waits until none is left (pods wait for their kubelet), then
 * removes the finalizer through `PUT /api/v1/namespaces/{name}/finalize`, which lets the server
 * remove the namespace.
 */
import type { SchedulerLike } from 'rxjs';
import { controller, isConflict, isNotFound, type Controller, type InformerFactory, type KubeClient, type KubeObject, type Logger } from 'rxkube';
import type { Resource } from './resources.js';
import { NAMESPACES } from './resources.js';

const FINALIZER = 'kubernetes';

export interface NamespaceControllerOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  /** Namespaced resources to empty (from discovery). */
  readonly resources: () => readonly Resource[];
  /** How long to wait before looking again while content remains (ms). Default 1000. */
  readonly recheckMs?: number;
  readonly logger?: Logger;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

interface NamespaceObject extends KubeObject {
  readonly spec?: { readonly finalizers?: readonly string[] };
}

/** Builds the namespace controller. */
export function namespaceController(options: NamespaceControllerOptions): Controller<NamespaceObject> {
  return controller<NamespaceObject>({
    name: options.name ?? 'namespace',
    for: NAMESPACES,
    informers: options.informers,
    client: options.client,
    skipNameValidation: true,
    concurrency: 2,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    reconcile: async (request, ctx) => {
      const ns = ctx.object;
      if (ns === undefined || ns.metadata?.deletionTimestamp === undefined) return undefined;
      const finalizers = ns.spec?.finalizers ?? [];
      if (!finalizers.includes(FINALIZER)) return undefined;
      let remaining = 0;
      for (const r of options.resources()) {
        if (!r.namespaced) continue;
        const objects = ctx.objects<KubeObject>(r, request.name);
        let items: readonly KubeObject[];
        try {
          items = (await objects.list({ signal: ctx.signal })).items;
        } catch (err) {
          if (isNotFound(err)) continue; // the resource went away (a CRD deleted meanwhile)
          throw err;
        }
        remaining += items.length;
        for (const o of items) {
          if (o.metadata?.deletionTimestamp !== undefined) continue;
          try {
            await objects.delete(o.metadata?.name ?? '', { propagationPolicy: 'Background', signal: ctx.signal });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
      }
      if (remaining > 0) return { requeueAfter: options.recheckMs ?? 1000 };
      const path = `/api/v1/namespaces/${encodeURIComponent(request.name)}/finalize`;
      const body = { ...ns, spec: { ...ns.spec, finalizers: finalizers.filter((f) => f !== FINALIZER) } };
      try {
        await options.client.connection.request({ method: 'PUT', path, body }, ctx.signal);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        if (isConflict(err)) return { requeue: true };
        throw err;
      }
      // kube-apiserver removes a finalized namespace on that write; deleting again is harmless.
      try {
        await ctx.objects<NamespaceObject>(NAMESPACES).delete(request.name, { signal: ctx.signal });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      ctx.logger.info('namespace content deleted and finalized', { namespace: request.name });
      return undefined;
    },
  });
}
