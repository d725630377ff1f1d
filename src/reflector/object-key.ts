import type { KubeObject } from '../api/kube-object.js';

/** `namespace/name` or `name` (the reflector's private key for the streaming-list buffer). */
export function objectKey(object: KubeObject): string {
  const meta = object.metadata;
  const name = meta?.name ?? '';
  return meta?.namespace ? `${meta.namespace}/${name}` : name;
}
