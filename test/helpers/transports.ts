// The two transports of the client, for tests that must hold for both (describe.each): the
// Node.js KubeConnection (node:http/https, kubeconfig credentials) and the FetchConnection (fetch
// and web streams, the browser's). Each builds a KubeClient for an embedded API server.
import type { ApiServer } from '@rxkube/testkit';
import { fetchClient } from '../../src/client/fetch-client.js';
import { KubeClient } from '../../src/client/kube-client.js';
import type { FetchConnectionOptions } from '../../src/client/fetch-connection.js';

/** One transport under test. */
export interface Transport {
  readonly name: string;
  /**
   * Whether its tests run the server with TLS. Node's fetch cannot be given the embedded server's
   * own CA without a dispatcher of undici (not a dependency), so fetch runs over plain HTTP.
   */
  readonly tls: boolean;
  /** A client for `server`; `token` overrides the server's token (e.g. a wrong one). */
  client(server: ApiServer, options?: { readonly token?: string; readonly fetch?: FetchConnectionOptions['fetch'] }): KubeClient;
}

export const NODE_TRANSPORT: Transport = {
  name: 'node (KubeConnection)',
  tls: true,
  client(server, options = {}) {
    const kc = server.kubeConfig;
    if (options.token !== undefined) {
      const user = kc.getCurrentUser()!.name;
      kc.users = kc.users.map((u) => (u.name === user ? { ...u, token: options.token } : u));
    }
    return KubeClient.fromKubeConfig(kc);
  },
};

export const FETCH_TRANSPORT: Transport = {
  name: 'fetch (FetchConnection)',
  tls: false,
  client(server, options = {}) {
    const token = options.token ?? server.token;
    return fetchClient({ server: server.url, ...(token !== undefined ? { token } : {}), ...(options.fetch !== undefined ? { fetch: options.fetch } : {}) });
  },
};

/** Both transports, for `describe.each(TRANSPORTS)('… over $name', (transport) => …)`. */
export const TRANSPORTS: readonly Transport[] = [NODE_TRANSPORT, FETCH_TRANSPORT];
