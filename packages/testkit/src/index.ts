/**
 * `@rxkube/testkit`: the embedded API server (a kube-apiserver 1.34 (or 1.20) look-alike over HTTP(S) that
 * kubectl, client-go and client-node talk to), the in-process cluster (the same server reached
 * without a socket, so a whole controller runs in virtual time), `virtualTime`, and the
 * `rxkube-apiserver` CLI. A devDependency: nothing here belongs in a controller's production
 * install.
 *
 * @module @rxkube/testkit
 */

// First: fails the import on a Node.js older than rxkube's `engines`, with a message.
import 'rxkube';

export { startApiServer } from './api-server/start-api-server.js';
export type { AdmissionWebhookOptions, ApiServer, ApiServerKubeConfig, ApiServerOptions, EmbeddedControllerOptions } from './api-server/start-api-server.js';
export type { WebhookServiceRef } from './api-server/admission/webhooks/webhook-client.js';
export type { Faults, FailSpec, RequestMatch } from './api-server/faults.js';
export type { RequestFilter, RequestLog, RequestRecord } from './api-server/request-log.js';
export type { DeleteOptions } from './api-server/object-service.js';
export type { RbacOptions, TokenUser } from './api-server/rbac.js';
export type { DirectApi } from './api-server/api-core.js';
export type { CorsOptions } from './api-server/cors.js';
export type { StaticFilesOptions } from './api-server/static-files.js';
export { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS } from './api-server/kubernetes-version.js';
export type { KubernetesVersion } from './api-server/kubernetes-version.js';
// Async reconciles in virtual time: an embedded API server reached in process, and a virtual
// clock that also runs Promises.
export { inProcessCluster } from './in-process-cluster.js';
export type { InProcessCluster, InProcessClusterOptions } from './in-process-cluster.js';
export { virtualTime } from './virtual-time.js';
export type { VirtualTimeHelpers, VirtualTimeOptions } from './virtual-time.js';
export { ApiServerConfigError, DirectApiError, UnknownKindError } from './api-server/server-errors.js';
// Outcome assertions in virtual time: `start`, `eventually` and `converged` of `virtualTime`'s helpers.
export { EventuallyTimeoutError, NotConvergedError } from './outcome/outcome-errors.js';
export type { ConvergedOptions, EventuallyOptions, OutcomeCondition } from './outcome/outcome-assertions.js';
export type { RecordedOutcome, StartedController } from './outcome/outcome-log.js';
export type { PendingRequeue, VirtualRunReport } from './outcome/outcome-report.js';
// A throw-away CA and a serving certificate for localhost (webhook servers in development and tests).
export { generateTlsMaterial } from './api-server/tls-certificate.js';
export type { TlsMaterial } from './api-server/tls-certificate.js';
