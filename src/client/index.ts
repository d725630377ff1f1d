export {
  API_ERROR_CODES,
  ApiError,
  isAlreadyExists,
  isConflict,
  isExpired,
  isGone,
  isNotFound,
  isTooLargeResourceVersion,
  isTooManyRequests,
  retryAfter,
} from './api-error.js';
export {
  apiErrorFromResponse,
  parseRetryAfter,
  wellTypedStatus,
} from './api-error-from-response.js';
export {
  Discovery,
  UnknownResourceError,
} from './discovery.js';
export {
  HttpListWatcher,
} from './http-list-watcher.js';
export type {
  ListWatchScope,
} from './http-list-watcher.js';
export {
  KubeClient,
} from './kube-client.js';
export {
  KubeConnection,
  queryString,
} from './kube-connection.js';
export type {
  KubeConnectionOptions,
  KubeRequest,
  RequestOptions,
  QueryParams,
} from './kube-connection.js';
export {
  NetworkError,
  isNetworkError,
} from './network-error.js';
export {
  ObjectClient,
  PATCH_CONTENT_TYPES,
} from './object-client.js';
export type {
  ApplyOptions,
  CallOptions,
  DeleteOptions,
  ObjectClientOptions,
  ObjectListOptions,
  PatchOptions,
  PatchType,
  WriteOptions,
} from './object-client.js';
export type {
  ApplyConfiguration,
  DeepPartial,
} from './apply-configuration.js';
export {
  resourcePath,
} from './resource-path.js';
export type {
  PathOptions,
} from './resource-path.js';
export {
  WatchDecodeError,
} from './watch-decode-error.js';
export {
  watchEventError,
} from './watch-event-error.js';
export {
  WatchLineDecoder,
  decodeWatchLines,
} from './watch-line-decoder.js';
export {
  abortable,
} from './abortable.js';
export {
  ResponseDecodeError,
} from './response-decode-error.js';
export {
  createOrPatch,
  createOrUpdate,
  deepEqual,
  mergePatchOf,
} from './create-or-update.js';
export type {
  CreateOrUpdateResult,
  MutateFn,
  OperationResult,
} from './create-or-update.js';
export {
  retryOnConflict,
} from './retry-on-conflict.js';
export type {
  RetryOnConflictOptions,
} from './retry-on-conflict.js';
export {
  DEFAULT_RETRY_POLICY,
  delayOn,
  resolveRetryPolicy,
  retryDelayMs,
} from './retry-policy.js';
export type {
  ResolvedRetryPolicy,
  RetryPolicy,
} from './retry-policy.js';
export {
  draftPatch,
  jsonPointer,
} from './draft-patch.js';
export type {
  DraftPatch,
  JsonPatchOperation,
  Recipe,
} from './draft-patch.js';
export {
  EditConflictError,
  editObject,
} from './update-with-recipe.js';
export type {
  EditableClient,
  EditOptions,
} from './update-with-recipe.js';
export {
  InClusterConfigError,
  KubeConfigError,
} from './kubeconfig-errors.js';
export type {
  InClusterConfigErrorCode,
  KubeConfigErrorCode,
} from './kubeconfig-errors.js';
export {
  SERVICE_ACCOUNT_DIR,
  checkCurrentContext,
  loadDefaultKubeConfig,
  loadInClusterConfig,
  loadKubeConfigFile,
  loadKubeConfigString,
} from './kubeconfig-load.js';
export type {
  RequestObserver,
  RequestOutcome,
} from './request-outcome.js';
export {
  KUBE_CLIENT_KEY,
} from './client-key.js';
