/**
 * The embedded API server and a client to it for the enclosing `describe` (or file): started in
 * `beforeAll`, handed to `set`, closed in `afterAll`.
 */
import { afterAll, beforeAll } from 'vitest';
import { KubeClient } from '../../src/client/kube-client.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

export function useEmbeddedServer(set: (server: ApiServer, client: KubeClient) => void): void {
  let server: ApiServer | undefined;
  let client: KubeClient | undefined;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    set(server, client);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });
}
