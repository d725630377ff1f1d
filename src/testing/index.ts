/**
 * The `rxkube/testing` entry: test doubles that need no API server and nothing beyond RxJS — fake
 * informers and controller sources driven by marbles, and an in-memory Lease API for leader
 * election in virtual time. They live in the runtime package (not in `@rxkube/testkit`) because a
 * controller's unit tests need them and they cost nothing to install: no server, no extra
 * dependency. The embedded API server, the in-process cluster and `virtualTime` are in
 * `@rxkube/testkit`.
 *
 * @module rxkube/testing
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { InMemoryLeaseApi } from './in-memory-lease-api.js';
export type { InMemoryLeaseApiOptions, LeaseFault, LeaseLatency, LeaseOp, LeaseRequest, LeaseWrite } from './in-memory-lease-api.js';
export { added, deleted, fakeSource, updated } from './controller-harness.js';
export type { FakeSource, FakeSourceOptions } from './controller-harness.js';
export { fakeInformer } from './fake-informer.js';
export type { FakeInformer, FakeInformerOptions } from './fake-informer.js';
