export { startApiServer } from './api-server/start-api-server.js';
export type { ApiServer, ApiServerOptions } from './api-server/start-api-server.js';
export type { Faults, FailSpec, RequestMatch } from './api-server/faults.js';
export type { RequestLog, RequestRecord, RequestFilter } from './api-server/request-log.js';
export type { DeleteOptions } from './api-server/object-service.js';
