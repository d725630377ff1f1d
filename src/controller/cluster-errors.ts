import { ControllerError } from './controller-errors.js';

/**
 * The abort reason of a multi-cluster controller's reconcile whose cluster left the fleet (its
 * `removed` event, or a `changed` event replacing it) while the reconcile ran; the reconcile is
 * reported `aborted` and not requeued.
 */
export class ClusterRemovedError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_CLUSTER_REMOVED';
  override name = 'ClusterRemovedError';
  constructor(
    readonly controller: string,
    readonly cluster: string,
    /** `removed`: the cluster left; `replaced`: a `changed` event replaced it with a new connection. */
    readonly why: 'removed' | 'replaced' | 'stopped',
  ) {
    super(
      `controller ${controller}: cluster ${cluster} ${why === 'replaced' ? 'was replaced (its connection changed)' : why === 'stopped' ? 'was let go (the controller stopped)' : 'left the fleet'}; its reconciles were aborted`,
    );
  }
}

/**
 * A cluster event a multi-cluster controller could not act on (a bad cluster name, no client),
 * or a cluster whose sources failed: the event is skipped and logged; the other clusters go on.
 */
export class ClusterEventError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_CLUSTER_EVENT_INVALID';
  override name = 'ClusterEventError';
  constructor(
    readonly controller: string,
    /** The cluster the event named (as given, possibly not a string). */
    readonly cluster: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`controller ${controller}: cluster ${cluster}: ${message}`, options);
  }
}

/**
 * A kubeconfig Secret (`kubeconfigSecretClusters`) that does not describe a usable cluster: the
 * key is missing or empty, the text is not a kubeconfig, it has no current context or server, or
 * no client could be made from it. The Secret is skipped (a cluster it described before is
 * removed); the other Secrets go on. Never quotes the Secret's content.
 */
export class KubeconfigSecretError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_KUBECONFIG_SECRET_INVALID';
  override name = 'KubeconfigSecretError';
  constructor(
    readonly namespace: string,
    /** The Secret's name (the cluster's name). */
    readonly secret: string,
    /** The data key read. */
    readonly key: string,
    /** Why, without the Secret's content. */
    readonly why: string,
    /** The `KubeConfigError` code when the kubeconfig could not be loaded. */
    readonly kubeconfigCode?: string,
  ) {
    super(`kubeconfig Secret ${namespace}/${secret} (key ${key}): ${why}; skipped`);
  }
}
