import type { KubeObject } from './kube-object.js';

/** Key of the type-only member of {@link ResourceType}; there is no such value at run time. */
declare const objectType: unique symbol;

/**
 * A resource type: which objects, on which API, and (type-only) their TypeScript type. The one
 * way rxkube names a resource, built-in or custom, for informers, clients, controllers and owner
 * mapping.
 *
 * `plural` and `namespaced` may be left out: discovery resolves them on first use (cached). Owner
 * mapping (`owns`, `toOwnerRequests`) needs `namespaced`. The descriptors in `resources`
 * (`resources.pods`, …) and the ones `rxkube generate-types` writes carry everything.
 *
 * ```ts
 * const WIDGETS: ResourceType<Widget> = { apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets', namespaced: true };
 * informers.for(WIDGETS);               // SharedInformer<Widget>
 * client.objects(WIDGETS, 'default');   // ObjectClient<Widget>
 * ```
 */
export interface ResourceType<T extends KubeObject = KubeObject> {
  /** `v1` for core, `group/version` otherwise (e.g. `apps/v1`). */
  readonly apiVersion: string;
  readonly kind: string;
  /** Lower-case plural used in URLs, e.g. `pods`; resolved through discovery when absent. */
  readonly plural?: string;
  /** Whether objects live in a namespace; resolved through discovery when absent. */
  readonly namespaced?: boolean;
  /** Type-only: the TypeScript type of the objects. Never set. */
  readonly [objectType]?: T;
}

/** A {@link ResourceType} whose `plural` and `namespaced` are known (given, or resolved by discovery). */
export type ResolvedResourceType<T extends KubeObject = KubeObject> = ResourceType<T> & {
  readonly plural: string;
  readonly namespaced: boolean;
};

/** The object type a resource type carries: `ObjectOf<typeof resources.pods>` is `Pod`. */
export type ObjectOf<R> = R extends ResourceType<infer T> ? T : never;

/** True when `type` already carries `plural` and `namespaced`, so no discovery is needed. */
export function isResolved<R extends ResourceType>(type: R): type is R & { readonly plural: string; readonly namespaced: boolean } {
  return typeof type.plural === 'string' && typeof type.namespaced === 'boolean';
}

/** Splits an apiVersion into group ('' for core) and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
