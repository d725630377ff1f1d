import type { KubeObject } from '../api/kube-object.js';

/**
 * What `listWatch()` emits: a complete `replace` for each (re)list, then individual changes, and
 * `bookmark`s that advance the resume version without changing any object.
 */
export type ReflectorEvent<T extends KubeObject = KubeObject> =
  | {
      readonly type: 'replace';
      readonly items: readonly T[];
      readonly resourceVersion: string;
      /** Replaces only the objects of this namespace (one namespace of a multi-namespace informer); absent: all. */
      readonly namespace?: string;
    }
  | { readonly type: 'added'; readonly object: T }
  | { readonly type: 'modified'; readonly object: T }
  | { readonly type: 'deleted'; readonly object: T }
  | { readonly type: 'bookmark'; readonly resourceVersion: string };
