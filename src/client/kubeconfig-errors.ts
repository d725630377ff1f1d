import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';

/** What is wrong with a kubeconfig (the `code` of a {@link KubeConfigError}). */
export type KubeConfigErrorCode =
  | 'CLIENT_KUBECONFIG_NOT_FOUND'
  | 'CLIENT_KUBECONFIG_UNREADABLE'
  | 'CLIENT_KUBECONFIG_PARSE'
  | 'CLIENT_KUBECONFIG_INVALID'
  | 'CLIENT_KUBECONFIG_NO_CONTEXT'
  | 'CLIENT_KUBECONFIG_NO_CLUSTER'
  | 'CLIENT_KUBECONFIG_BAD_SERVER'
  | 'CLIENT_KUBECONFIG_FILE_MISSING';

/**
 * A kubeconfig that cannot be used: the file is missing or unreadable, is not YAML (with the line
 * and column), is not a kubeconfig, has no current context, its context names no usable
 * cluster, or a file it names (CA, client certificate or key, token file) does not exist or cannot
 * be read (`CLIENT_KUBECONFIG_FILE_MISSING`, naming that file in `missingFile` and the message).
 * `file` is the kubeconfig file it came from, when there is one.
 */
export class KubeConfigError extends RxkubeError {
  static override readonly code: string = 'CLIENT_KUBECONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'KubeConfigError';

  constructor(
    /** What is wrong (the class's own code, `CLIENT_KUBECONFIG_INVALID`, is one of them). */
    override readonly code: KubeConfigErrorCode,
    message: string,
    readonly file?: string,
    /** 1-based line and column of a parse error. */
    readonly position?: { readonly line: number; readonly column: number },
    options?: ErrorOptions & { readonly missingFile?: string },
  ) {
    super(message, options);
    this.missingFile = options?.missingFile;
  }

  /** `CLIENT_KUBECONFIG_FILE_MISSING`: the CA, certificate, key or token file that is missing or unreadable. */
  readonly missingFile: string | undefined;
}

/** What is missing for in-cluster configuration (the `code` of an {@link InClusterConfigError}). */
export type InClusterConfigErrorCode = 'CLIENT_IN_CLUSTER_CONFIG_MISSING' | 'CLIENT_IN_CLUSTER_NO_ENV' | 'CLIENT_IN_CLUSTER_NO_TOKEN' | 'CLIENT_IN_CLUSTER_NO_CA';

/**
 * `KubeClient.inCluster()` outside a pod (or in a pod without a service-account token): names the
 * missing environment variable (`KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`) or file.
 */
export class InClusterConfigError extends RxkubeError {
  static override readonly code: string = 'CLIENT_IN_CLUSTER_CONFIG_MISSING';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'InClusterConfigError';

  constructor(
    /** What is missing. */
    override readonly code: InClusterConfigErrorCode,
    message: string,
    /** The missing variable or file. */
    readonly missing: string,
  ) {
    super(message);
  }
}
