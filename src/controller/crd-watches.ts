import { distinctUntilChanged, map, type Observable } from 'rxjs';
import { resources } from '../api/builtin-resources.js';
import type * as K8s from '../api/builtin-types.js';
import type { ResolvedResourceType } from '../api/resource.js';
import type { InformerFactory } from '../informer/informer-factory.js';
import type { DynamicWatchSpec } from './dynamic-watch-spec.js';

/** Options of {@link crdKinds}. */
export interface CrdKindsOptions {
  /** Only CRDs with these labels (e.g. `'example.com/watched-by=my-controller'`); default every CRD. */
  readonly labelSelector?: string;
}

/** Options of {@link crdWatches}. */
export interface CrdWatchesOptions extends CrdKindsOptions {
  /** The watch of one kind (its `source` should be `kind`, so the diff key is the kind's `apiVersion/kind`). */
  readonly watch: (kind: ResolvedResourceType) => DynamicWatchSpec;
}

/**
 * The set of custom resource kinds served right now, as a value over time: the CRDs selected by
 * `labelSelector` (watched through `informers`' shared CRD informer, `apiextensions.k8s.io/v1`)
 * whose `Established` condition is `True` and that are not being deleted, each as the resource
 * type of its storage version when that version is served (else its first served version). Emits
 * once the CRD cache synced, then whenever the set changes (sorted by `apiVersion/kind`).
 *
 * ```
 * CRDs:   --A(est)------B(est)------A(deleting)--
 * kinds:  s-a-----------(ab)--------b------------     s: [] once synced
 * ```
 */
export function crdKinds(informers: InformerFactory, options: CrdKindsOptions = {}): Observable<readonly ResolvedResourceType[]> {
  const crds = informers.for(resources.customResourceDefinitions, {
    namespace: null,
    ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
  });
  return crds.state$.pipe(
    map((snapshot) => [...snapshot.values()].flatMap((crd) => servedKind(crd) ?? []).sort((a, b) => kindKey(a).localeCompare(kindKey(b)))),
    distinctUntilChanged((a, b) => a.length === b.length && a.every((k, i) => sameKind(k, b[i] as ResolvedResourceType))),
  );
}

/**
 * {@link crdKinds} as a controller's `dynamicWatches`: each kind's watch is made once by `watch`
 * and kept (the same spec object) while the kind stays in the set.
 *
 * ```ts not-compiled
 * controller({
 *   name: 'stamper', informers, client,
 *   dynamicWatches: crdWatches(informers, {
 *     labelSelector: 'example.com/stamped=true',
 *     watch: (kind) => ({ source: kind, map: (o) => [requestFor(kind, o)] }),
 *   }),
 *   reconcile,
 * });
 * ```
 */
export function crdWatches(informers: InformerFactory, options: CrdWatchesOptions): Observable<readonly DynamicWatchSpec[]> {
  let made = new Map<string, DynamicWatchSpec>();
  return crdKinds(informers, options).pipe(
    map((kinds) => {
      const next = new Map<string, DynamicWatchSpec>();
      for (const kind of kinds) next.set(kindKey(kind), made.get(kindKey(kind)) ?? options.watch(kind));
      made = next;
      return [...next.values()];
    }),
  );
}

/** The resource type a CRD serves, if it is established and not being deleted. */
export function servedKind(crd: K8s.CustomResourceDefinition): ResolvedResourceType | undefined {
  if (crd.metadata?.deletionTimestamp !== undefined && crd.metadata.deletionTimestamp !== null) return undefined;
  const established = (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (!established) return undefined;
  const versions = crd.spec?.versions ?? [];
  const version = versions.find((v) => v.storage && v.served) ?? versions.find((v) => v.served);
  const names = crd.spec?.names;
  if (version === undefined || names?.kind === undefined || names.plural === undefined || typeof crd.spec.group !== 'string') return undefined;
  return { apiVersion: `${crd.spec.group}/${version.name}`, kind: names.kind, plural: names.plural, namespaced: crd.spec.scope === 'Namespaced' };
}

function kindKey(kind: ResolvedResourceType): string {
  return `${kind.apiVersion}/${kind.kind}`;
}

function sameKind(a: ResolvedResourceType, b: ResolvedResourceType): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.plural === b.plural && a.namespaced === b.namespaced;
}
