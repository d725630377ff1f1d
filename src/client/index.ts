/**
 * `rxkube/client`: the client layer beyond KubeClient: every API error class and predicate, discovery, client-node model conversion, the list/watch transport, and the connection seam for custom transports.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/client
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { InClusterConfigError } from './kubeconfig-errors.js';
export { UnknownResourceError } from './discovery.js';
export type { Discovery } from './discovery.js';
export { fromClientNode, toClientNode } from './client-node-models.js';
export { HttpListWatcher } from './http-list-watcher.js';
export type { ListWatchScope } from './http-list-watcher.js';
export { isExpired, isTooManyRequests } from './api-error.js';
export { isNetworkError, NetworkError } from './network-error.js';
export { ResponseDecodeError } from './response-decode-error.js';
export { WatchDecodeError } from './watch-decode-error.js';
export { EditConflictError } from './update-with-recipe.js';
export type { EditOptions } from './update-with-recipe.js';

// The connection seam: what a custom transport (an in-process server, a browser fetch) implements.
export { KubeConnection, queryString } from './kube-connection.js';
export type { KubeRequest, QueryParams } from './kube-connection.js';
export { apiErrorFromResponse } from './api-error-from-response.js';

// Bounds and credentials: timeouts, watch line length, exec plugins and token files.
export { RequestTimeoutError } from './request-timeout-error.js';
export type { RequestTimeoutPhase } from './request-timeout-error.js';
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS } from './request-deadline.js';
export { DEFAULT_MAX_WATCH_LINE_BYTES, WatchLineTooLongError } from './watch-line-too-long-error.js';
export { ExecCredentialError, TokenFileError } from './credential-errors.js';
export type { ExecCredentialFailure } from './credential-errors.js';
export { DEFAULT_EXEC_TIMEOUT_MS } from './exec-credential-source.js';
export { TOKEN_FILE_REFRESH_MS } from './token-file-source.js';
export type { StreamOptions } from './kube-connection.js';

// Errors that point at the fix: the request an ApiError answers, the 403 it parsed, the RBAC rule that allows it.
export type { ApiErrorOptions } from './api-error.js';
export type { ApiErrorFromResponseOptions } from './api-error-from-response.js';
export type { ResponseBodyShape } from './api-error-advice.js';
export type { ApiRequestContext, ClientIdentity, CredentialKind } from './api-request-context.js';
export { deniedRequestOf } from './denied-request.js';
export type { DeniedRequest } from './denied-request.js';
export { suggestRbac } from './rbac-suggestion.js';
export type { RbacPolicyRule, RbacSubject, RbacSuggestion } from './rbac-suggestion.js';
