import { KubeClientBase } from './kube-client-base.js';
import { FetchConnection, type FetchConnectionOptions } from './fetch-connection.js';

/** Options of {@link fetchClient}: those of {@link FetchConnection}. */
export type FetchClientOptions = FetchConnectionOptions;

/**
 * A client over `fetch` (a {@link FetchConnection}): in a browser, or any runtime with `fetch`.
 * It is used like any `KubeClient` — `new InformerFactory(client)`, `client.objects(…)`,
 * `client.listWatcher(…)` — and has everything of one but the kubeconfig factories (it is a
 * `KubeClientBase`; kubeconfigs, client certificates and exec plugins are Node.js matters). Its
 * declared type is `KubeClientBase` so that a browser project's type check never loads
 * `KubeClient`'s module, whose factories take Node.js types (TLS agent options); a `KubeClient`
 * is a `KubeClientBase` with the same instance members, so either type holds the other.
 *
 * ```ts
 * import { fetchClient, InformerFactory } from 'rxkube/browser';
 *
 * const client = fetchClient({ server: '/k8s' });                        // same-origin proxy (kubectl proxy --api-prefix=/k8s)
 * const remote = fetchClient({ server: 'https://api.example:6443', token: () => session.token() });
 * const pods = new InformerFactory(client, { namespace: 'default' }).pods();
 * ```
 * @throws FetchConfigError when `server` is not a URL or the runtime has no `fetch`.
 */
export function fetchClient(options: FetchClientOptions): KubeClientBase {
  return new KubeClientBase(new FetchConnection(options));
}
