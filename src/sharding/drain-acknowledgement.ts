import type { KubeObject } from '../api/kube-object.js';
import type { ResourceType } from '../api/resource.js';
import type { KubeClient } from '../client/kube-client.js';
import { pointerSegment } from './ring-labels.js';
import { drainLabel, shardLabel } from './shard-ring.js';

/**
 * A shard's acknowledgement of a drain: removes the ring's shard and drain labels of `object`,
 * guarded by its resourceVersion (a JSON patch that fails with a conflict when the object changed
 * since the shard's cache saw it).
 */
export async function acknowledgeDrain(client: KubeClient, type: ResourceType, object: KubeObject, ring: string, signal?: AbortSignal): Promise<void> {
  const meta = object.metadata ?? {};
  const labels = meta.labels ?? {};
  const ops: object[] = [{ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion }];
  for (const key of [shardLabel(ring), drainLabel(ring)]) {
    if (labels[key] !== undefined) ops.push({ op: 'remove', path: `/metadata/labels/${pointerSegment(key)}` });
  }
  await client.objects(type, meta.namespace).patch(meta.name ?? '', ops, 'json', signal === undefined ? {} : { signal });
}
