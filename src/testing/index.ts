/**
 * The `rxkube/testing` entry: the embedded API server and the test doubles for controller tests.
 *
 * @module rxkube/testing
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { startApiServer } from './api-server/start-api-server.js';
export type { ApiServer, ApiServerKubeConfig, ApiServerOptions } from './api-server/start-api-server.js';
export type { Faults, FailSpec, RequestMatch } from './api-server/faults.js';
export type { RequestFilter, RequestLog, RequestRecord } from './api-server/request-log.js';
export type { DeleteOptions } from './api-server/object-service.js';
export type { EmbeddedControllerOptions } from './api-server/start-api-server.js';
export type { RbacOptions, TokenUser } from './api-server/rbac.js';
export type { StandInNodesOptions } from '../controllers/stand-in-nodes.js';
export { InMemoryLeaseApi } from './in-memory-lease-api.js';
export type { InMemoryLeaseApiOptions, LeaseFault, LeaseLatency, LeaseOp, LeaseRequest, LeaseWrite } from './in-memory-lease-api.js';
export { added, deleted, fakeSource, updated } from './controller-harness.js';
export type { FakeSource, FakeSourceOptions } from './controller-harness.js';
export { fakeInformer } from './fake-informer.js';
export type { FakeInformer, FakeInformerOptions } from './fake-informer.js';
// Async reconciles in virtual time: an embedded API server reached in process, and a virtual
// clock that also runs Promises.
export { inProcessCluster } from './in-process-cluster.js';
export type { InProcessCluster, InProcessClusterOptions } from './in-process-cluster.js';
export { virtualTime } from './virtual-time.js';
export type { VirtualTimeHelpers, VirtualTimeOptions } from './virtual-time.js';
export type { DirectApi } from './api-server/api-core.js';
