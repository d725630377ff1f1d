// The entries of a kubeconfig rxkube reads (no Node.js types: the browser door's declarations reach them).

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
