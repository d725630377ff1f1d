import type { UnstructuredObject } from 'rxkube';
import type { ServedResource } from './resource-registry.js';
import { badRequest, conflict } from './status-error.js';
import type { ObjectWrites } from './strategies/strategy.js';

/**
 * `POST /api/v1/namespaces/{ns}/pods/{name}/binding` (what a scheduler does): sets
 * `spec.nodeName` of a pod not yet bound and marks it `PodScheduled`; 409 when it is bound already.
 * Answers the Success Status kube-apiserver answers.
 */
export function bindPod(service: ObjectWrites, r: ServedResource, namespace: string | undefined, name: string, body: unknown): object {
  const target = (body as { target?: { name?: unknown } } | null)?.target;
  if (typeof target?.name !== 'string' || target.name === '') throw badRequest('binding target name is required');
  const current = service.get(r, namespace, name);
  const pod = current.object;
  const spec = (pod['spec'] as Record<string, unknown> | undefined) ?? {};
  if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') {
    throw conflict({ plural: r.plural, group: r.group, name }, `pod ${name} is already assigned to node "${spec['nodeName']}"`);
  }
  if (pod.metadata?.deletionTimestamp !== undefined) throw conflict({ plural: r.plural, group: r.group, name }, `pod ${name} is being deleted, cannot be assigned to a host`);
  const status = (pod['status'] as { conditions?: readonly { type?: string }[] } | undefined) ?? {};
  const conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'PodScheduled'), { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }];
  const next: UnstructuredObject = { ...pod, spec: { ...spec, nodeName: target.name }, status: { ...status, conditions } };
  // Both spec and status change: write the object, then its status.
  const bound = service.writeUpdate(r, current, next, 'binding');
  service.writeUpdate(r, bound, next, 'status');
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}
