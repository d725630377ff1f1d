/**
 * The `@rxkube/controller-manager` entry: rxkube-controller-manager's controllers (garbage collector,
 * namespace, Deployment, ReplicaSet, endpoints, stand-in nodes), written on rxkube's public API,
 * for the embedded API server, for a kube-apiserver that runs no controllers of its own, and as
 * building blocks (the ReplicaSet example runs `replicaSetController`).
 *
 * @module @rxkube/controller-manager
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import 'rxkube';

export { ALL_CONTROLLERS, controllerManager, startControllerManager } from './controller-manager.js';
export type { ControllerManagerOptions, ControllerName, RunningControllerManager } from './controller-manager.js';
export { garbageCollector } from './garbage-collector.js';
export type { GarbageCollectorOptions } from './garbage-collector.js';
export { namespaceController } from './namespace-controller.js';
export type { NamespaceControllerOptions } from './namespace-controller.js';
export { deploymentController } from './deployment-controller.js';
export type { DeploymentControllerOptions } from './deployment-controller.js';
export { replicaSetController } from './replicaset/replicaset-controller.js';
export type { ReplicaSetControllerOptions, ReplicaSetSyncReport } from './replicaset/replicaset-controller.js';
export { endpointsController } from './endpoints-controller.js';
export type { EndpointsControllerOptions } from './endpoints-controller.js';
export { standInNodes } from './stand-in-nodes.js';
export type { StandInNodesOptions } from './stand-in-nodes.js';
