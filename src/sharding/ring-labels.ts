import type { KubeObject } from '../api/kube-object.js';
import type { ObjectAssignment } from './shard-assignment.js';
import { drainLabel, shardLabel } from './shard-ring.js';

/** The ring's labels of an object as the sharding decisions read them (`undefined` for no object). */
export function ringLabels(object: KubeObject | undefined, ring: string): ObjectAssignment | undefined {
  if (object === undefined) return undefined;
  const labels = object.metadata?.labels ?? {};
  const shard = labels[shardLabel(ring)];
  return { ...(shard === undefined ? {} : { shard }), drain: labels[drainLabel(ring)] !== undefined };
}

/** JSON-pointer escaping of one path segment (label keys hold '/'). */
export function pointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
