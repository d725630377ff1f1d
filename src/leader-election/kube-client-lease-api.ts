import type { ResourceType } from '../api/resource.js';
import { abortable } from '../client/abortable.js';
import type { KubeClient } from '../client/kube-client.js';
import type { LeaseApi } from './lease-api.js';
import type { Lease } from './lease.js';

/** `coordination.k8s.io/v1` Leases (resolved, so no discovery request is needed). */
export const LEASE_RESOURCE: ResourceType<Lease> = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true };

/**
 * A {@link LeaseApi} over rxkube's HTTP client: GET, POST and PUT (`replace`, conditional on
 * `metadata.resourceVersion`) of Leases. Each call is a cold Observable; unsubscribing aborts the
 * request. Errors are the client's `ApiError` (404 NotFound, 409 Conflict, …) or `NetworkError`.
 *
 * ```ts ignore (internal: LeaseLock is not public)
 * const lock = new LeaseLock(kubeClientLeaseApi(client), { namespace: 'kube-system', name: 'my-ctrl' }, identity);
 * ```
 */
export function kubeClientLeaseApi(client: KubeClient): LeaseApi {
  const leases = (namespace: string | undefined) => client.objects(LEASE_RESOURCE, namespace);
  return {
    // No client retries: the elector retries on its own period, within its renew deadline.
    get: (ref) => abortable((signal) => leases(ref.namespace).get(ref.name, { signal, retry: false })),
    create: (lease) => abortable((signal) => leases(lease.metadata?.namespace).create(lease, { signal, retry: false })),
    update: (lease) => abortable((signal) => leases(lease.metadata?.namespace).replace(lease, { signal, retry: false })),
  };
}
