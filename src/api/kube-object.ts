/**
 * The minimal shape rxkube needs of any Kubernetes object. Objects are kept as parsed JSON
 * (timestamps stay strings), so built-in and custom resources share one representation.
 *
 * These are structural constraints without index signatures, so the interfaces of
 * `kubernetes-types` (`Pod`, `Deployment`, …) and the ones `rxkube generate-types` writes satisfy
 * them as they are. An object whose fields are not typed is an {@link UnstructuredObject}.
 */

/** An owner reference, as in `metadata.ownerReferences`. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** `metadata` of a Kubernetes object: the fields rxkube reads (`kubernetes-types`' `ObjectMeta` fits it). */
export interface ObjectMeta {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly deletionGracePeriodSeconds?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly finalizers?: readonly string[];
  readonly managedFields?: readonly unknown[];
}

/** Any Kubernetes object: `apiVersion`, `kind`, `metadata`; its type adds the rest (`spec`, `data`, …). */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
}

/**
 * An object as an informer's cache holds it: the API server has set its `metadata` with `name`,
 * `uid` and `resourceVersion` (and `namespace` for a namespaced type, which the type cannot know,
 * so it stays optional). What every read from an informer's cache hands out (its `store`, listers,
 * index handles, `events$` / `listen()` objects, `state$` snapshots, `until`, `joinOn`), and what a
 * reconcile's `ctx.object` and `ctx.store`, a controller source's store and the `map` / `filter` of
 * `watches` and `owns` get, so no `!` is needed:
 *
 * ```ts
 * const finalizers = ctx.object?.metadata.finalizers ?? [];   // no `metadata!`
 * ```
 */
export type Cached<T extends KubeObject> = T & {
  readonly metadata: { readonly name: string; readonly uid: string; readonly resourceVersion: string };
};

/**
 * What a mapping or filter of an entry typed `U` gets: {@link Cached}`<U>`; for the untyped
 * entry (`U` is `KubeObject`, e.g. a `WatchSpec` without type argument) plain `KubeObject`, so
 * the mappers written for any type (`(o: Database) => …` in an untyped `watches`) still fit.
 */
export type CachedEntry<U extends KubeObject> = KubeObject extends U ? U : Cached<U>;

/** An object whose fields beyond `apiVersion`, `kind` and `metadata` are not typed (read them as `unknown`). */
export interface UnstructuredObject extends KubeObject {
  readonly [field: string]: unknown;
}

/**
 * The metadata-only view of an object (`meta.k8s.io/v1 PartialObjectMetadata`), which the API
 * server sends instead of the whole object when asked for it in the `Accept` header; what a
 * metadata-only informer (`InformerFactory.metadata`) caches.
 */
export interface PartialObjectMetadata extends KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
}

/** A list response (`PodList`, …). */
export interface KubeList<T extends KubeObject = KubeObject> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly continue?: string;
    readonly remainingItemCount?: number;
  };
  readonly items: readonly T[];
}
