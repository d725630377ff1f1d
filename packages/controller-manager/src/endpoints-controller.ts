/**
 * The endpoints controller of kube-controller-manager: for each Service with a selector, an
 * Endpoints object of the same name lists the pods it selects that have an IP: Ready ones under
 * `addresses`, the others under `notReadyAddresses`, with the Service's ports (a numeric
 * `targetPort`, else the port; named target ports resolve through the pods' container ports).
 * Deleting the Service deletes its Endpoints.
 */
import type { SchedulerLike } from 'rxjs';
import { compileLabelSelector } from 'rxkube/api';
import { controller, informerSource, isAlreadyExists, isNotFound, resources, type Controller, type InformerFactory, type K8s, type KubeClient, type Logger, type Request } from 'rxkube';

export interface EndpointsControllerOptions {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly logger?: Logger;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

type Subset = NonNullable<K8s.Endpoints['subsets']>[number];

const BY_NAMESPACE = 'endpoints-namespace';

function isReady(p: K8s.Pod): boolean {
  return (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function selects(svc: K8s.Service, pod: K8s.Pod): boolean {
  const sel = svc.spec?.selector;
  if (sel === undefined || Object.keys(sel).length === 0) return false;
  return compileLabelSelector({ matchLabels: sel })(pod.metadata?.labels);
}

function targetPort(port: NonNullable<NonNullable<K8s.Service['spec']>['ports']>[number], pods: readonly K8s.Pod[]): number {
  const t = port.targetPort;
  if (typeof t === 'number') return t;
  if (typeof t === 'string' && t !== '') {
    for (const p of pods) for (const c of p.spec?.containers ?? []) for (const cp of c.ports ?? []) if (cp.name === t) return cp.containerPort;
  }
  return port.port;
}

/** The subsets of a Service's Endpoints for the pods it selects (one subset, as kube groups equal port sets). */
export function endpointSubsets(svc: K8s.Service, pods: readonly K8s.Pod[]): Subset[] {
  const selected = pods.filter((p) => selects(svc, p) && (p.status?.podIP ?? '') !== '' && p.metadata?.deletionTimestamp === undefined);
  if (selected.length === 0) return [];
  const address = (p: K8s.Pod) => ({
    ip: p.status?.podIP ?? '',
    ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
    targetRef: { kind: 'Pod', namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '', uid: p.metadata?.uid ?? '' },
  });
  const byName = (a: { targetRef: { name: string } }, b: { targetRef: { name: string } }) => a.targetRef.name.localeCompare(b.targetRef.name);
  const ready = selected.filter(isReady).map(address).sort(byName);
  const notReady = selected.filter((p) => !isReady(p)).map(address).sort(byName);
  const ports = (svc.spec?.ports ?? []).map((p) => ({ ...(p.name ? { name: p.name } : {}), port: targetPort(p, selected), protocol: p.protocol ?? 'TCP' }));
  return [{ ...(ready.length > 0 ? { addresses: ready } : {}), ...(notReady.length > 0 ? { notReadyAddresses: notReady } : {}), ...(ports.length > 0 ? { ports } : {}) }];
}

/** Builds the endpoints controller. */
export function endpointsController(options: EndpointsControllerOptions): Controller<K8s.Service> {
  const services = informerSource(options.informers.services({ indexers: { [BY_NAMESPACE]: (s) => [s.metadata?.namespace ?? ''] } }), resources.services);
  const pods = informerSource(options.informers.pods({ indexers: { [BY_NAMESPACE]: (p) => [p.metadata?.namespace ?? ''] } }), resources.pods);
  const servicesOf = (pod: K8s.Pod): Request[] =>
    services.store.byIndex(BY_NAMESPACE, pod.metadata?.namespace ?? '').filter((s) => selects(s, pod)).map((s) => ({ namespace: s.metadata?.namespace ?? '', name: s.metadata?.name ?? '' }));
  return controller<K8s.Service>({
    name: options.name ?? 'endpoints',
    for: services,
    watches: [{ source: pods, map: (p) => servicesOf(p as K8s.Pod) }],
    client: options.client,
    skipNameValidation: true,
    concurrency: 2,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    reconcile: async (request, ctx) => {
      const endpoints = ctx.objects(resources.endpoints, request.namespace);
      const svc = ctx.object;
      const opts = { signal: ctx.signal };
      if (svc === undefined) {
        await endpoints.delete(request.name, opts).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
        return;
      }
      if (svc.spec?.selector === undefined) return; // endpoints of a selector-less Service are managed by hand
      const subsets = endpointSubsets(svc, pods.store.byIndex(BY_NAMESPACE, request.namespace ?? ''));
      const labels = svc.metadata?.labels;
      let current: K8s.Endpoints | undefined;
      try {
        current = await endpoints.get(request.name, opts);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (current === undefined) {
        try {
          await endpoints.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: request.name, ...(labels ? { labels } : {}) }, subsets }, opts);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
          return { requeue: true };
        }
        return;
      }
      if (JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets)) return;
      await endpoints.replace({ ...current, subsets }, opts);
      return;
    },
  });
}
