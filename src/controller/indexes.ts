import type { KubeObject } from '../api/kube-object.js';

/** Index function: the object's own uid (for the owner side of an owner ⋈ owned join). */
export function uidIndex(object: KubeObject): string[] {
  const uid = object.metadata?.uid;
  return typeof uid === 'string' && uid !== '' ? [uid] : [];
}

/** Index function: the uids of every owner reference (for the owned side of an owner ⋈ owned join). */
export function ownerUidIndex(object: KubeObject): string[] {
  return (object.metadata?.ownerReferences ?? []).map((r) => r.uid).filter((u) => typeof u === 'string' && u !== '');
}

/** Index function: `metadata.name`. */
export function nameIndex(object: KubeObject): string[] {
  const name = object.metadata?.name;
  return typeof name === 'string' && name !== '' ? [name] : [];
}
