/**
 * A small controller used by the tier-2 and tier-3 tests: it keeps a ConfigMap `<name>-mirror` in
 * sync with a source object's `spec.data` (a custom Widget) or `data` (a ConfigMap), owned by the
 * source, guarded by a finalizer that deletes the mirror when the source goes.
 */
import { resources } from '../../src/api/builtin-resources.js';
import type { K8s } from '../../src/api/k8s.js';
import type { KubeObject, UnstructuredObject } from '../../src/api/kube-object.js';
import type { ResourceType } from '../../src/api/resource.js';
import { isNotFound } from '../../src/client/api-error.js';
import { controller, type Controller, type ControllerOptions } from '../../src/controller/controller.js';
import { finalizer } from '../../src/controller/finalizer.js';

export const CONFIG_MAPS = resources.configMaps;
export const FINALIZER = 'example.com/mirror';
export type ConfigMap = K8s.ConfigMap;

export const mirrorName = (source: string): string => `${source}-mirror`;

/** The data a source wants mirrored. */
export function wantedData(source: KubeObject): Record<string, string> {
  const { spec, data } = source as UnstructuredObject;
  return { ...((spec as { data?: Record<string, string> } | undefined)?.data ?? (data as Record<string, string> | undefined) ?? {}) };
}

/** What the mirror controller did, for a test to print when it does not converge. */
export type MirrorTrace = (what: string, source: string, detail: Record<string, unknown>) => void;

export function mirrorController(
  options: Omit<ControllerOptions, 'reconcile' | 'owns'> & { readonly sourceResource: ResourceType; readonly trace?: MirrorTrace },
): Controller {
  const { sourceResource, trace, ...rest } = options;
  return controller({
    ...rest,
    owns: [CONFIG_MAPS],
    reconcile: async (req, ctx) => {
      const source = ctx.object;
      trace?.('reconcile', req.name, { id: ctx.reconcileId, rv: source?.metadata?.resourceVersion, deleting: source?.metadata?.deletionTimestamp !== undefined, finalizers: source?.metadata?.finalizers });
      const mirrors = ctx.objects<ConfigMap>(CONFIG_MAPS, req.namespace);
      if (source === undefined) {
        // Gone. Normally the finalizer removed the mirror already, but a DELETE that read the
        // source just before our finalizer was added deletes it at once (kube-apiserver 1.20
        // checks finalizers on the object it read, not on the one it deletes), and a mirror
        // created meanwhile stays: remove it here as well (without a garbage collector nothing else will).
        trace?.('delete mirror (source gone)', req.name, { id: ctx.reconcileId });
        await mirrors.delete(mirrorName(req.name), { ignoreNotFound: true, signal: ctx.signal });
        return;
      }
      return finalizer(source, {
        name: FINALIZER,
        client: ctx.objects(),
        signal: ctx.signal,
        apply: async (o) => {
          const want = wantedData(o);
          const name = mirrorName(req.name);
          const ownerReferences = [
            { apiVersion: sourceResource.apiVersion, kind: sourceResource.kind, name: req.name, uid: o.metadata?.uid ?? '', controller: true },
          ];
          let current: ConfigMap | undefined;
          try {
            current = await mirrors.get(name, { signal: ctx.signal });
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
          if (current === undefined) {
            trace?.('create mirror', req.name, { id: ctx.reconcileId, rv: o.metadata?.resourceVersion });
            await mirrors.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: req.namespace, ownerReferences }, data: want });
            ctx.recorder.event(o, 'Normal', 'Created', `created ${name}`);
          } else if (JSON.stringify(current.data ?? {}) !== JSON.stringify(want)) {
            await mirrors.replace({ ...current, data: want }); // 409 on a concurrent write → retried by the queue
          }
        },
        cleanup: async () => {
          trace?.('delete mirror', req.name, { id: ctx.reconcileId });
          try {
            await mirrors.delete(mirrorName(req.name));
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        },
      });
    },
  });
}

/**
 * What still differs from the mirror controller's goal: every live source has a mirror holding its
 * wanted data, owned by it (controller reference), and carries the finalizer; every deleted source
 * is gone together with its mirror. `sources` and `mirrors` are keyed by name.
 */
export function mirrorProblems(
  names: readonly string[],
  deleted: readonly string[],
  sources: ReadonlyMap<string, KubeObject>,
  mirrors: ReadonlyMap<string, ConfigMap>,
): string[] {
  const problems: string[] = [];
  for (const n of names) {
    const src = sources.get(n);
    const mirror = mirrors.get(mirrorName(n));
    if (deleted.includes(n)) {
      if (src !== undefined) problems.push(`${n} still exists`);
      if (mirror !== undefined) problems.push(`${mirrorName(n)} still exists`);
      continue;
    }
    const want = src === undefined ? undefined : wantedData(src);
    if (JSON.stringify(mirror?.data) !== JSON.stringify(want)) problems.push(`${n}: ${JSON.stringify(mirror?.data)} ≠ ${JSON.stringify(want)}`);
    if (!src?.metadata?.finalizers?.includes(FINALIZER)) problems.push(`${n} lacks the finalizer`);
    const owner = mirror?.metadata?.ownerReferences?.[0];
    if (owner?.uid !== src?.metadata?.uid || owner?.controller !== true) problems.push(`${mirrorName(n)} has a wrong owner`);
  }
  return problems;
}
