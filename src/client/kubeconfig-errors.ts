/** What is wrong with a kubeconfig (the `code` of a {@link KubeConfigError}). */
export type KubeConfigErrorCode =
  | 'KUBECONFIG_NOT_FOUND'
  | 'KUBECONFIG_UNREADABLE'
  | 'KUBECONFIG_PARSE'
  | 'KUBECONFIG_INVALID'
  | 'KUBECONFIG_NO_CONTEXT'
  | 'KUBECONFIG_NO_CLUSTER'
  | 'KUBECONFIG_BAD_SERVER';

/**
 * A kubeconfig that cannot be used: the file is missing or unreadable, is not YAML (with the line
 * and column), is not a kubeconfig, has no current context, or its context names no usable
 * cluster. `file` is the file it came from, when there is one.
 */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  readonly layer = 'client';

  constructor(
    readonly code: KubeConfigErrorCode,
    message: string,
    readonly file?: string,
    /** 1-based line and column of a parse error. */
    readonly position?: { readonly line: number; readonly column: number },
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What is missing for in-cluster configuration (the `code` of an {@link InClusterConfigError}). */
export type InClusterConfigErrorCode = 'IN_CLUSTER_NO_ENV' | 'IN_CLUSTER_NO_TOKEN' | 'IN_CLUSTER_NO_CA';

/**
 * `KubeClient.inCluster()` outside a pod (or in a pod without a service-account token): names the
 * missing environment variable (`KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`) or file.
 */
export class InClusterConfigError extends Error {
  override readonly name = 'InClusterConfigError';
  readonly layer = 'client';

  constructor(
    readonly code: InClusterConfigErrorCode,
    message: string,
    /** The missing variable or file. */
    readonly missing: string,
  ) {
    super(message);
  }
}
