import type { UnstructuredObject } from '../src/api/kube-object.js';
import type { KubeConfigLike } from '../src/client/kube-config-like.js';

/** One kind of fault a backend can inject. `fire` may take a while (a restart). */
export interface SoakFault {
  readonly kind: string;
  /** Relative frequency (default 1). */
  readonly weight?: number;
  fire(rand: () => number): void | Promise<void>;
}

/**
 * Where the soak runs: the API server the informers watch, the writer's operations on one
 * namespace's ConfigMaps, and the faults it can inject. Writes may fail while a fault is active
 * (the soak counts those as write errors, not violations).
 */
export interface SoakBackend {
  readonly name: string;
  readonly kubeConfig: KubeConfigLike;
  readonly namespace: string;
  /** The namespace's ConfigMaps as the server has them now. */
  list(): Promise<readonly UnstructuredObject[]>;
  get(name: string): Promise<UnstructuredObject | undefined>;
  create(object: UnstructuredObject): Promise<void>;
  update(object: UnstructuredObject): Promise<void>;
  delete(name: string): Promise<void>;
  readonly faults: readonly SoakFault[];
  /** Ends lasting faults (latency, frozen watches, pending failures). */
  clearFaults(): void | Promise<void>;
  /** Watch connections the server has open (when it can tell). */
  openWatches?(): number;
  /** Watch requests the server received (when it can tell). */
  watchRequests?(): number;
  close(): Promise<void>;
}
