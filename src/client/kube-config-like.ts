import type https from 'node:https';

import type { KubeConfigCluster, KubeConfigContext, KubeConfigUser } from './kube-config-entries.js';

/**
 * What rxkube needs of a kubeconfig: the members of `@kubernetes/client-node`'s `KubeConfig` it
 * uses, so a client-node `KubeConfig` is one. Declared here rather than imported,
 * so rxkube's type declarations do not pull in client-node's, whose WebSocket typings need
 * `@types/ws` and fail a consumer's type check under `skipLibCheck: false`.
 */
export interface KubeConfigLike {
  clusters: KubeConfigCluster[];
  users: KubeConfigUser[];
  contexts: KubeConfigContext[];
  currentContext: string;
  getCurrentContext(): string;
  getContextObject(name: string): KubeConfigContext | null;
  getCurrentCluster(): KubeConfigCluster | null;
  getCurrentUser(): KubeConfigUser | null;
  /** Sets credentials (headers, auth, TLS material) on request options; refreshes exec and OIDC tokens. */
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}
