import type { KubeObject } from '../api/kube-object.js';

/** Anything naming an object: a Kubernetes object or a `{namespace?, name}` request. */
export type ObjectRefTarget = Pick<KubeObject, 'metadata'> | { readonly namespace?: string; readonly name: string };

/** The `object` log field for an object or request: `"namespace/name"` or `"name"`. */
export function objectRef(target: ObjectRefTarget): string {
  const meta: { readonly namespace?: string; readonly name?: string } | undefined =
    'metadata' in target ? target.metadata : (target as { readonly namespace?: string; readonly name: string });
  const name = meta?.name ?? '';
  const ns = meta?.namespace;
  return ns ? `${ns}/${name}` : name;
}
