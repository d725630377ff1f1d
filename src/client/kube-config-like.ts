import type https from 'node:https';

/** A cluster entry of a kubeconfig (the fields of client-node's `Cluster` that rxkube reads). */
export interface KubeConfigCluster {
  readonly name: string;
  readonly server: string;
  readonly caData?: string;
  readonly caFile?: string;
  readonly tlsServerName?: string;
  readonly skipTLSVerify: boolean;
  readonly proxyUrl?: string;
}

/** A user entry of a kubeconfig (client-node's `User`). */
export interface KubeConfigUser {
  readonly name: string;
  readonly token?: string;
  /** A file holding the bearer token (kubeconfig `token-file`): read again every minute, trimmed. */
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  readonly certData?: string;
  readonly certFile?: string;
  readonly keyData?: string;
  readonly keyFile?: string;
  readonly exec?: unknown;
  readonly authProvider?: unknown;
  readonly impersonateUser?: string;
}

/** A context entry of a kubeconfig (client-node's `Context`). */
export interface KubeConfigContext {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace?: string;
}

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
