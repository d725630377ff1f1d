/**
 * The garbage collector of kube-controller-manager, as an rxkube controller over shared informers
 * of every discovered resource:
 * - background: an object whose owners are all gone is deleted; owner references to owners that
 *   are gone (while others remain) are removed;
 * - foreground: an owner carrying the `foregroundDeletion` finalizer has its dependents deleted and
 *   keeps the finalizer until no dependent with `blockOwnerDeletion` is left;
 * - orphan: an owner carrying the `orphan` finalizer has its owner reference removed from every
 *   dependent, then the finalizer removed.
 * Requests carry the namespace and `plural.group:name` (one queue for all resources). An owner missing
 * from the caches is looked up on the server before its dependents are deleted.
 */
import { controller, informerSource, isNotFound, type Controller, type ControllerSource, type InformerFactory, type KubeClient, type KubeObject, type Logger, type OwnerReference, type Request, type WatchSpec } from 'rxkube';
import type { SchedulerLike } from 'rxjs';
import { resourceKey, type Resource } from './resources.js';

const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';
const BY_UID = 'gc-uid';
const BY_OWNER = 'gc-owner-uid';

export interface GarbageCollectorOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  /** The resources to track (from discovery); objects of other types are never collected. */
  readonly resources: readonly Resource[];
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

interface Tracked {
  readonly resource: Resource;
  readonly key: string;
  readonly source: ControllerSource<KubeObject>;
}

function requestOf(t: Tracked, o: KubeObject): Request {
  const ns = o.metadata?.namespace;
  return { ...(ns !== undefined && ns !== '' ? { namespace: ns } : {}), name: `${t.key}:${o.metadata?.name ?? ''}` };
}

function without(refs: readonly OwnerReference[], uids: ReadonlySet<string>): OwnerReference[] {
  return refs.filter((r) => !uids.has(r.uid));
}

/** Builds the garbage collector; add it to a manager after the informer factory's runnable. */
export function garbageCollector(options: GarbageCollectorOptions): Controller {
  const tracked: Tracked[] = options.resources.map((resource) => {
    const informer = options.informers.for<KubeObject>(resource, {
      namespace: null,
      indexers: {
        [BY_UID]: (o) => (o.metadata?.uid !== undefined ? [o.metadata.uid] : []),
        [BY_OWNER]: (o) => (o.metadata?.ownerReferences ?? []).map((r) => r.uid),
      },
    });
    return { resource, key: resourceKey(resource), source: informerSource(informer, resource) };
  });
  const byKey = new Map(tracked.map((t) => [t.key, t]));

  const findByUid = (uid: string): { t: Tracked; o: KubeObject } | undefined => {
    for (const t of tracked) {
      const [o] = t.source.store.byIndex(BY_UID, uid);
      if (o !== undefined) return { t, o };
    }
    return undefined;
  };
  const dependentsOf = (uid: string): { t: Tracked; o: KubeObject }[] =>
    tracked.flatMap((t) => t.source.store.byIndex(BY_OWNER, uid).map((o) => ({ t, o })));

  /** An event on an object wakes the object, its owners (foreground waits) and its dependents (owner gone). */
  const watches: WatchSpec[] = tracked.map((t) => ({
    source: t.source,
    map: (o: KubeObject) => {
      const out: Request[] = [requestOf(t, o)];
      for (const ref of o.metadata?.ownerReferences ?? []) {
        const owner = findByUid(ref.uid);
        if (owner !== undefined) out.push(requestOf(owner.t, owner.o));
      }
      if (o.metadata?.uid !== undefined) for (const d of dependentsOf(o.metadata.uid)) out.push(requestOf(d.t, d.o));
      return out;
    },
  }));

  /** Whether the owner `ref` of an object in `namespace` still exists (cache first, then the server). */
  const ownerExists = async (ref: OwnerReference, namespace: string | undefined, signal: AbortSignal): Promise<boolean> => {
    if (findByUid(ref.uid) !== undefined) return true;
    try {
      const live = await options.client.objects({ apiVersion: ref.apiVersion, kind: ref.kind }, namespace).get(ref.name, { signal });
      return live.metadata?.uid === ref.uid;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  };

  return controller({
    name: options.name ?? 'garbagecollector',
    watches,
    client: options.client,
    skipNameValidation: true,
    concurrency: options.concurrency ?? 5,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    reconcile: async (request, ctx) => {
      const colon = request.name.indexOf(':');
      const t = byKey.get(request.name.slice(0, colon));
      if (t === undefined) return;
      const name = request.name.slice(colon + 1);
      const namespace = request.namespace ?? '';
      const o = t.source.store.get(namespace === '' ? name : `${namespace}/${name}`);
      if (o === undefined) return; // gone: its dependents were woken by the delete event
      const meta = o.metadata ?? {};
      const client = ctx.objects<KubeObject>(t.resource, namespace === '' ? undefined : namespace);
      const uid = meta.uid ?? '';
      const finalizers = meta.finalizers ?? [];
      const dropFinalizer = async (f: string): Promise<void> => {
        await client.patch(name, { metadata: { finalizers: finalizers.filter((x) => x !== f), resourceVersion: meta.resourceVersion } }, 'merge', { signal: ctx.signal });
      };

      if (meta.deletionTimestamp !== undefined && finalizers.includes(ORPHAN)) {
        for (const d of dependentsOf(uid)) {
          const refs = d.o.metadata?.ownerReferences ?? [];
          const dc = ctx.objects<KubeObject>(d.t.resource, d.o.metadata?.namespace);
          await dc.patch(d.o.metadata?.name ?? '', { metadata: { ownerReferences: without(refs, new Set([uid])), resourceVersion: d.o.metadata?.resourceVersion } }, 'merge', { signal: ctx.signal });
        }
        await dropFinalizer(ORPHAN);
        return;
      }
      if (meta.deletionTimestamp !== undefined && finalizers.includes(FOREGROUND)) {
        const dependents = dependentsOf(uid);
        for (const d of dependents) {
          if (d.o.metadata?.deletionTimestamp !== undefined) continue;
          // A dependent with dependents of its own is deleted in the foreground too (the chain waits).
          const policy = dependentsOf(d.o.metadata?.uid ?? '').length > 0 ? 'Foreground' : 'Background';
          try {
            await ctx.objects<KubeObject>(d.t.resource, d.o.metadata?.namespace).delete(d.o.metadata?.name ?? '', { propagationPolicy: policy, preconditions: { uid: d.o.metadata?.uid ?? '' }, signal: ctx.signal });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        const blocking = dependents.filter((d) => d.o.metadata?.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion === true));
        if (blocking.length === 0) await dropFinalizer(FOREGROUND);
        return;
      }
      const refs = meta.ownerReferences ?? [];
      if (refs.length === 0 || meta.deletionTimestamp !== undefined) return;
      const gone = new Set<string>();
      for (const ref of refs) if (!(await ownerExists(ref, namespace === '' ? undefined : namespace, ctx.signal))) gone.add(ref.uid);
      if (gone.size === 0) return;
      if (gone.size === refs.length) {
        ctx.logger.info('deleting object whose owners are gone', { object: request.name });
        try {
          await client.delete(name, { propagationPolicy: 'Background', preconditions: { uid }, signal: ctx.signal });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        return;
      }
      await client.patch(name, { metadata: { ownerReferences: without(refs, gone), resourceVersion: meta.resourceVersion } }, 'merge', { signal: ctx.signal });
    },
  });
}
