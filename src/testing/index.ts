export { startApiServer } from './api-server/start-api-server.js';
export type { ApiServer, ApiServerOptions } from './api-server/start-api-server.js';
export type { Faults, FailSpec, RequestMatch } from './api-server/faults.js';
export type { RequestLog, RequestRecord, RequestFilter } from './api-server/request-log.js';
export type { DeleteOptions } from './api-server/object-service.js';
export { InMemoryLeaseApi } from '../leader-election/in-memory-lease-api.js';
export type { InMemoryLeaseApiOptions, LeaseFault, LeaseLatency, LeaseOp, LeaseRequest, LeaseWrite } from '../leader-election/in-memory-lease-api.js';
export { fakeSource, added, updated, deleted } from './controller-harness.js';
export type { FakeSource, FakeSourceOptions } from './controller-harness.js';
