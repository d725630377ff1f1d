import { Observable } from 'rxjs';
import type * as K8s from '../api/builtin-types.js';
import { KubeClientBase } from '../client/kube-client-base.js';
import { KubeClient } from '../client/kube-client.js';
import type { KubeConnectionOptions } from '../client/kube-connection.js';
import { checkCurrentContext, loadKubeConfigString } from '../client/kubeconfig-load.js';
import type { InformerEvent } from '../cache/informer-event.js';
import { isDeletedFinalStateUnknown } from '../cache/delta.js';
import { InformerFactory } from '../informer/informer-factory.js';
import type { Logger } from '../logging/logger.js';
import { noopLogger } from '../logging/noop-logger.js';
import { ControllerBuildError } from './controller-errors.js';
import { KubeconfigSecretError } from './cluster-errors.js';
import type { ClusterEvent, ClusterTarget } from './controller-options.js';

/** multicluster-runtime's label of kubeconfig Secrets, the default `labelSelector`. */
export const DEFAULT_KUBECONFIG_SECRET_SELECTOR = 'sigs.k8s.io/multicluster-runtime-kubeconfig=true';

/** Options of {@link kubeconfigSecretClusters}. */
export interface KubeconfigSecretClustersOptions {
  /** The namespace of the Secrets (on the home cluster). */
  readonly namespace: string;
  /** Which Secrets; default {@link DEFAULT_KUBECONFIG_SECRET_SELECTOR}. `''` takes every Secret of the namespace. */
  readonly labelSelector?: string;
  /** The data key holding the kubeconfig; default `kubeconfig`. */
  readonly key?: string;
  /** Options of the clients made from the kubeconfigs. */
  readonly clientOptions?: KubeConnectionOptions;
  /**
   * Makes the cluster of a kubeconfig (default: a `KubeClient` from it). Called when a Secret is
   * added or its kubeconfig changes; a throw skips the Secret as a broken kubeconfig.
   */
  readonly connect?: (kubeconfig: string, secret: { readonly namespace: string; readonly name: string }) => ClusterTarget;
  /** Told of every Secret skipped; default: logged to `logger`. */
  readonly onError?: (error: KubeconfigSecretError) => void;
  /** Default a no-op logger. */
  readonly logger?: Logger;
}

/** What one Secret currently stands for. */
interface Known {
  readonly kubeconfig: string;
  readonly target: ClusterTarget;
}

/**
 * The clusters described by kubeconfig Secrets on the home cluster (multicluster-runtime's
 * kubeconfig provider): each Secret of `namespace` matching `labelSelector` whose `key` holds a
 * kubeconfig is a cluster named after the Secret. Read through a Secret informer (from
 * `informers`, or a new factory over `client`), as `ClusterEvent`s for a controller's `clusters`:
 * - a new Secret → `added`, with a `KubeClient` made from its kubeconfig;
 * - its kubeconfig changed → `changed` (the controller lets the old cluster go and engages the new
 *   one); an update that leaves the kubeconfig as it was (labels, resync) → nothing;
 * - deleted, or no longer matching the selector → `removed`;
 * - a broken kubeconfig (key missing, not YAML, no current context or server) is reported as a
 *   {@link KubeconfigSecretError} naming the Secret and skipped (a cluster it described before is
 *   `removed`: its owner replaced what it pointed at); it never ends the stream.
 *
 * Cold: each subscription listens on its own and makes its own clients; a client is closed right
 * after the event that replaces or removes its cluster was handed on, and every client when the
 * subscription ends.
 *
 * ```ts
 * const fleet = kubeconfigSecretClusters(informers, { namespace: 'fleet-system' });   // the home cluster's informers
 * const c = controller({ for: resources.configMaps, clusters: fleet, reconcile: (req) => console.log(req.cluster) });
 * ```
 * @throws ControllerBuildError for a missing namespace or empty key.
 */
export function kubeconfigSecretClusters(home: InformerFactory | KubeClient, options: KubeconfigSecretClustersOptions): Observable<ClusterEvent> {
  if (options === null || typeof options !== 'object' || typeof options.namespace !== 'string' || options.namespace === '') {
    throw new ControllerBuildError('kubeconfigSecretClusters needs options.namespace', { option: 'namespace' });
  }
  const key = options.key ?? 'kubeconfig';
  if (typeof key !== 'string' || key === '') throw new ControllerBuildError('kubeconfigSecretClusters: key must be a non-empty string', { option: 'key' });
  const { namespace } = options;
  const labelSelector = options.labelSelector ?? DEFAULT_KUBECONFIG_SECRET_SELECTOR;
  const request = { namespace, ...(labelSelector === '' ? {} : { labelSelector }) };
  const informer = home instanceof InformerFactory ? home.secrets(request) : new InformerFactory(home).secrets(request);
  const logger = options.logger ?? noopLogger;
  const report = options.onError ?? ((err: KubeconfigSecretError) => logger.error(err.message, { err, secret: `${err.namespace}/${err.secret}` }));
  const connect =
    options.connect ?? ((text: string, secret: { readonly namespace: string; readonly name: string }): ClusterTarget =>
      defaultConnect(text, `Secret ${secret.namespace}/${secret.name}`, options.clientOptions));

  return new Observable<ClusterEvent>((subscriber) => {
    const known = new Map<string, Known>();
    const close = (target: ClusterTarget): void => {
      const client = target instanceof KubeClientBase ? target : target.client;
      try {
        client.close();
      } catch {
        // closing is best effort
      }
    };
    const remove = (name: string): void => {
      const was = known.get(name);
      if (was === undefined) return;
      known.delete(name);
      subscriber.next({ type: 'removed', name });
      close(was.target);
    };
    const upsert = (secret: K8s.Secret): void => {
      const name = secret.metadata?.name ?? '';
      const read = kubeconfigOf(secret, key);
      const was = known.get(name);
      if (typeof read !== 'string') {
        report(new KubeconfigSecretError(namespace, name, key, read.why));
        remove(name);
        return;
      }
      if (was !== undefined && was.kubeconfig === read) return;
      let target: ClusterTarget;
      try {
        target = connect(read, { namespace, name });
      } catch (err) {
        const code = (err as { code?: unknown } | null)?.code;
        report(new KubeconfigSecretError(namespace, name, key, err instanceof Error ? err.message : String(err), typeof code === 'string' ? code : undefined));
        remove(name);
        return;
      }
      known.set(name, { kubeconfig: read, target });
      subscriber.next({ type: was === undefined ? 'added' : 'changed', name, cluster: target });
      if (was !== undefined) close(was.target);
    };
    const onEvent = (event: InformerEvent<K8s.Secret>): void => {
      if (event.type === 'delete') {
        const gone = event.object;
        const name = isDeletedFinalStateUnknown(gone) ? gone.key.split('/').pop() : gone.metadata?.name;
        if (name !== undefined) remove(name);
      } else {
        upsert(event.object);
      }
    };
    const listener = informer.listen({ name: `kubeconfig-secrets/${namespace}` });
    const sub = listener.events$.subscribe({
      next: (event) => {
        try {
          onEvent(event);
        } catch (err) {
          logger.error('kubeconfig Secret event dropped', { err });
        }
      },
      error: (err: unknown) => subscriber.error(err),
    });
    return () => {
      sub.unsubscribe();
      for (const k of known.values()) close(k.target);
      known.clear();
    };
  });
}

/** The kubeconfig text under `key`, or why there is none. */
function kubeconfigOf(secret: K8s.Secret, key: string): string | { readonly why: string } {
  const data = secret.data?.[key];
  if (typeof data !== 'string' || data === '') {
    const plain = (secret as { stringData?: Record<string, string> }).stringData?.[key];
    if (typeof plain === 'string' && plain !== '') return plain;
    return { why: `has no data under key ${key}` };
  }
  const text = Buffer.from(data, 'base64').toString('utf8');
  return text.trim() === '' ? { why: `key ${key} is empty` } : text;
}

/** A client from kubeconfig text, checked: its current context names a cluster with a server URL. */
function defaultConnect(text: string, source: string, clientOptions: KubeConnectionOptions | undefined): KubeClient {
  const kc = loadKubeConfigString(text, source);
  checkCurrentContext(kc, source);
  return KubeClient.fromKubeConfig(kc, clientOptions);
}
