/**
 * A controller over every custom resource kind labelled for it, as CRDs come and go: each object
 * of such a kind gets the annotation `example.com/stamped-generation` set to its generation. The
 * kinds come from `crdWatches` (the Established CRDs with the label), so a CRD created after the
 * controller started is watched from the moment it is Established, and a deleted one is dropped:
 * its informer stops after the factory's `stopGraceMs` and its cache is freed.
 */
import type { Controller, InformerFactory, KubeClient, KubeObject, Request, ResolvedResourceType } from 'rxkube';
import { controller } from 'rxkube';
import { crdWatches } from 'rxkube/controller';
import type { SchedulerLike } from 'rxjs';

/** The label a CRD carries to be watched by the stamper. */
export const STAMP_LABEL = 'example.com/stamped';
/** The annotation the stamper writes. */
export const STAMPED = 'example.com/stamped-generation';

/** Options of {@link stampController}. */
export interface StampControllerOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly scheduler?: SchedulerLike;
  /** Called after each reconcile of an object (for the demo and tests): `kind/namespace/name`. */
  readonly onStamped?: (what: string) => void;
}

/**
 * The request of an object of `kind`: the queue key names the object only, so the kind travels
 * in the name, after an `@` (not valid in Kubernetes names): `db-1@widgets.example.com`.
 */
export function requestOf(kind: ResolvedResourceType, object: KubeObject): Request {
  const name = `${object.metadata?.name ?? ''}@${kind.plural}.${kind.apiVersion.split('/')[0] ?? ''}`;
  const namespace = object.metadata?.namespace;
  return namespace === undefined ? { name } : { namespace, name };
}

/** The stamper (see the file's description). */
export function stampController(options: StampControllerOptions): Controller {
  const { client, informers, onStamped } = options;
  // The kinds being watched, by `plural.group`: filled as `crdWatches` makes their specs.
  const kinds = new Map<string, ResolvedResourceType>();
  return controller({
    name: 'stamper',
    client,
    informers,
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    permissions: [],
    dynamicWatches: crdWatches(informers, {
      labelSelector: `${STAMP_LABEL}=true`,
      watch: (kind) => {
        kinds.set(`${kind.plural}.${kind.apiVersion.split('/')[0] ?? ''}`, kind);
        return { source: kind, map: (o) => [requestOf(kind, o)] };
      },
    }),
    reconcile: async (req, ctx) => {
      const at = req.name.lastIndexOf('@');
      const kind = kinds.get(req.name.slice(at + 1));
      if (at < 0 || kind === undefined) return;
      const name = req.name.slice(0, at);
      const objects = ctx.objects(kind, req.namespace);
      const current = await objects.get(name).catch(() => undefined);
      if (current === undefined) return; // gone (or its kind is gone)
      const generation = String(current.metadata?.generation ?? 0);
      if (current.metadata?.annotations?.[STAMPED] !== generation) {
        await objects.patch(name, { metadata: { annotations: { [STAMPED]: generation } } });
      }
      onStamped?.(`${kind.kind}/${req.namespace ?? ''}/${name}`);
    },
  });
}
