export {
  cacheRunnable,
  dependencyKey,
  runnableDeps,
  toRunnable,
} from '../api/runnable.js';
export type {
  CacheRunnableOptions,
  DependencyKey,
  Runnable,
  RunnableDeps,
  RunnableLike,
  RunnableResult,
} from '../api/runnable.js';
export type {
  Permission,
  PermissionVerb,
} from '../api/permission.js';
export {
  RunnableGroup,
  runToCompletion,
  whenReady,
} from './runnable-group.js';
export {
  CacheSyncError,
  CheckerAfterStartError,
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerCacheSyncTimeoutError,
  ManagerConfigError,
  StopEngagedError,
  formatDuration,
} from './manager-errors.js';
export {
  serveHealthz,
} from './healthz-handler.js';
export type {
  HealthCheck,
  HealthzResponse,
  ServeHealthzOptions,
} from './healthz-handler.js';
export {
  httpServerRunnable,
} from './http-server.js';
export type {
  HttpServerOptions,
  HttpServerRunnable,
} from './http-server.js';
export {
  healthzRoute,
  metricsRoute,
  routes,
} from './probe-routes.js';
export type {
  Route,
} from './probe-routes.js';
export {
  IN_CLUSTER_NAMESPACE_FILE,
  resolveManagerLeaderElection,
} from './leader-election-options.js';
export type {
  Leadership,
  LeadershipFactory,
  ManagerLeaderElectionConfig,
  ManagerLeaderElectionOptions,
} from './leader-election-options.js';
export {
  setupSignalHandler,
} from './signal-handler.js';
export type {
  SignalHandler,
  SignalHandlerOptions,
  SignalSource,
} from './signal-handler.js';
export {
  manager,
} from './manager.js';
export type {
  HealthServerOptions,
  Manager,
  ManagerOptions,
  MetricsServerOptions,
} from './manager.js';
export {
  leaseLeadership,
} from './lease-leadership.js';
export type {
  LeaseLeadershipOptions,
} from './lease-leadership.js';
export {
  RbacDerivationError,
  rbacManifest,
  rbacRules,
} from './rbac.js';
export type {
  PolicyRule,
  RbacManifestOptions,
  RbacRules,
  ResourceResolver,
} from './rbac.js';
export {
  CacheMonitor,
  describeUnsynced,
} from './cache-monitor.js';
export type {
  CacheMonitorOptions,
  UnsyncedInformer,
} from './cache-monitor.js';
export {
  managerPermissions,
} from './manager-permissions.js';
export {
  DEPS,
} from './deps.js';
