import type { KubeObject, ObjectMeta } from '../api/kube-object.js';

/**
 * Every field optional, at every depth: the shape of a server-side apply configuration, which
 * names only the fields its field manager wants to own.
 */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? readonly DeepPartial<U>[]
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * What `apply` sends: the fields this field manager owns, with `metadata.name` required.
 * `apiVersion` and `kind` may be left out (the client fills in its resource's). Fields the
 * manager applied before and leaves out now are removed from the object, unless another manager
 * owns them too.
 */
export type ApplyConfiguration<T extends KubeObject = KubeObject> = {
  readonly [K in keyof T as K extends 'metadata' ? never : K]?: DeepPartial<T[K]>;
} & {
  readonly metadata: DeepPartial<ObjectMeta> & { readonly name: string };
};
