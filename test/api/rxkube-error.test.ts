// Every error rxkube throws is a RxkubeError with a stable code and its layer (docs/errors.md).
// The walks below find the error classes themselves (the root entry's, then every module's under
// src/), so a new error class that forgets its base, its code or its layer fails here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as root from '../../src/index.js';
import { type ErrorLayer, ConfigError, RxkubeError } from '../../src/index.js';
import { LabelSelectorError } from '../../src/api/label-selector.js';
import { CacheError, IndexerConflictError, IndexFuncError, IndexNotFoundError, InvalidInputError, KeyError, TransformError } from '../../src/cache/errors.js';
import { API_ERROR_CODES, ApiError } from '../../src/client/api-error.js';
import { UnknownResourceError } from '../../src/client/discovery.js';
import { NetworkError } from '../../src/client/network-error.js';
import { RequestTimeoutError } from '../../src/client/request-timeout-error.js';
import { ExecCredentialError, TokenFileError } from '../../src/client/credential-errors.js';
import { ResponseDecodeError } from '../../src/client/response-decode-error.js';
import { AlreadyOwnedError } from '../../src/controller/owner-references.js';
import { WaitTimeoutError } from '../../src/informer/until.js';
import { WatchDecodeError } from '../../src/client/watch-decode-error.js';
import { InClusterConfigError, KubeConfigError } from '../../src/client/kubeconfig-errors.js';
import { FetchConfigError } from '../../src/client/fetch-config-error.js';
import { ManagerCacheSyncTimeoutError } from '../../src/manager/manager-errors.js';
import { RbacDerivationError } from '../../src/manager/rbac.js';
import { ListWatchError } from '../../src/informer/list-watch-error.js';
import { EditConflictError } from '../../src/client/update-with-recipe.js';
import { CacheSyncTimeoutError, ControllerBuildError, ControllerError, ControllerStartedTwiceError } from '../../src/controller/controller-errors.js';
import { FinalizerConflictError } from '../../src/controller/finalizer.js';
import { InformerConfigError, InformerError, InformerSourceError, InformerStartedError, ListenerError } from '../../src/informer/informer-errors.js';
import { LeaderElectionConfigError } from '../../src/leader-election/leader-election-config.js';
import { LeaderElectionHealthError } from '../../src/leader-election/leader-elector.js';
import { LeaseNotInitializedError } from '../../src/leader-election/lease-lock.js';
import { LeadershipLostError } from '../../src/leader-election/leadership-lost-error.js';
import { FencedWriteError } from '../../src/controller/fenced-client.js';
import { ClusterEventError, ClusterRemovedError, KubeconfigSecretError } from '../../src/controller/cluster-errors.js';
import { ReadYourWritesTimeoutError } from '../../src/controller/read-your-writes.js';
import {
  CacheSyncError,
  CheckerAfterStartError,
  DuplicateControllerNameError,
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  ManagerAlreadyStartedError,
  ManagerConfigError,
  StopEngagedError,
  UncaughtError,
} from '../../src/manager/manager-errors.js';
import { resolveManagerLeaderElection } from '../../src/manager/leader-election-options.js';
import { ListContinueLoopError, ListPageLimitError, ListTimeoutError } from '../../src/reflector/list-pages.js';
import { UnexpectedObjectError } from '../../src/reflector/reflector-errors.js';
import { WatchLineTooLongError } from '../../src/client/watch-line-too-long-error.js';
import { resolveListWatchOptions } from '../../src/reflector/list-watch-options.js';
import { ReflectorConfigError, ReflectorFatalError, UnusableWatchEventError, VeryShortWatchError, WatchStalledError } from '../../src/reflector/reflector-errors.js';
import { ProtobufDecodeError } from '../../packages/testkit/src/api-server/protobuf/codec.js';
import { CelCompileError } from '../../packages/testkit/src/api-server/cel/compile.js';
import { StatusError } from '../../packages/testkit/src/api-server/status-error.js';
import { ApiServerConfigError, DirectApiError, UnknownKindError } from '../../packages/testkit/src/api-server/server-errors.js';
import { EventuallyTimeoutError, NotConvergedError } from '../../packages/testkit/src/outcome/outcome-errors.js';
import { ScaffoldError } from '../../packages/create-rxkube/src/scaffold-error.js';
import { bucketRateLimiter } from '../../src/workqueue/bucket-rate-limiter.js';
import { InvalidRequestError } from '../../src/workqueue/invalid-request-error.js';
import { checkDuration, RateLimiterOptionsError } from '../../src/workqueue/rate-limiter.js';
import { ReconcileAbortedError } from '../../src/workqueue/reconcile-aborted-error.js';
import { ReconcileTimeoutError } from '../../src/workqueue/reconcile-timeout-error.js';
import { TerminalError } from '../../src/workqueue/terminal-error.js';
import { WorkQueueOptionsError } from '../../src/workqueue/work-queue-options-error.js';
import { WebhookBodyTooLargeError, WebhookConfigError, WebhookHandlerError, WebhookHandlerTimeoutError, WebhookReviewError, WebhookTlsError } from '../../src/webhook/webhook-errors.js';

const LAYERS: readonly ErrorLayer[] = [
  'api', 'client', 'reflector', 'cache', 'informer', 'workqueue', 'metrics', 'events',
  'leader-election', 'controller', 'webhook', 'manager', 'testing', 'logging', 'scaffold',
];
const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;
/** Bases that are never thrown themselves, so have no code of their own. */
const ABSTRACT = new Set<unknown>([RxkubeError, ConfigError]);

type ErrorClass = (abstract new (...args: never[]) => Error) & { readonly code?: string; readonly layer?: ErrorLayer };

function errorClasses(module: Record<string, unknown>): ErrorClass[] {
  return Object.values(module).filter(
    (v): v is ErrorClass => typeof v === 'function' && (v as { prototype?: unknown }).prototype instanceof Error,
  );
}

/** Checks base, code and layer of each class and that no two classes share a code. */
function checkClasses(classes: readonly ErrorClass[]): void {
  const byCode = new Map<string, string>();
  for (const cls of classes) {
    expect(cls === RxkubeError || cls.prototype instanceof RxkubeError, `${cls.name} extends RxkubeError`).toBe(true);
    if (ABSTRACT.has(cls)) continue;
    expect(cls.code, `${cls.name}.code`).toMatch(CODE);
    expect(LAYERS, `${cls.name}.layer`).toContain(cls.layer);
    const prefix = cls === ApiError ? 'API_' : `${String(cls.layer).replace('-', '_').toUpperCase()}_`;
    expect(cls.code?.startsWith(prefix), `${cls.name}.code ${cls.code} starts with ${prefix}`).toBe(true);
    const code = cls.code as string;
    expect(byCode.get(code), `code ${code} of ${cls.name}`).toBeUndefined();
    byCode.set(code, cls.name);
  }
}

let srcClasses: Promise<ErrorClass[]> | undefined;

/** The error classes exported by any module under src/ (`*-main.ts` files are programs: skipped). */
function everySrcErrorClass(): Promise<ErrorClass[]> {
  srcClasses ??= (async () => {
    const repo = fileURLToPath(new URL('../../', import.meta.url));
    const dirs = [path.join(repo, 'src'), ...fs.readdirSync(path.join(repo, 'packages')).map((p) => path.join(repo, 'packages', p, 'src'))];
    const found = new Set<ErrorClass>();
    for (const dir of dirs) {
      const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('-main.ts')).sort();
      for (const f of files) {
        const module = (await import(path.join(dir, f))) as Record<string, unknown>;
        for (const cls of errorClasses(module)) found.add(cls);
      }
    }
    return [...found];
  })();
  return srcClasses;
}

/** The runtime's layer doors (`rxkube/<layer>`), beside the root entry. */
const LAYER_DOORS = ['api', 'client', 'reflector', 'cache', 'informer', 'workqueue', 'controller', 'sharding', 'webhook', 'manager', 'leader-election', 'metrics', 'logging'];

/** One instance of every error class in src/ and the packages' src/, as its throwers build it. */
const SAMPLES: Record<string, () => Error> = {
  ScaffoldError: () => new ScaffoldError('SCAFFOLD_INPUT_INVALID', '--kind "widget": a kind is PascalCase letters and digits (e.g. Widget)'),
  LabelSelectorError: () => new LabelSelectorError('a=(', 'unbalanced parentheses'),
  ApiError: () => new ApiError({ kind: 'Status', code: 404, reason: 'NotFound', message: 'pods "a" not found' }),
  NetworkError: () => new NetworkError('GET', '/api/v1/pods', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
  RequestTimeoutError: () => new RequestTimeoutError('10.0.0.1:6443', 'GET', '/api/v1/pods', 60_000, 'response'),
  ExecCredentialError: () => new ExecCredentialError('aws', 'admin', 'timeout', 'did not finish within 30000 ms and was killed', 'waiting for SSO'),
  TokenFileError: () => new TokenFileError('/var/run/token', 'is empty'),
  ResponseDecodeError: () => new ResponseDecodeError('GET', '/api/v1/pods', 'not JSON'),
  EditConflictError: () => new EditConflictError('default/cm', 5, new Error('409')),
  FetchConfigError: () => new FetchConfigError('server "::" is not a URL', { option: 'server' }),
  KubeConfigError: () => new KubeConfigError('CLIENT_KUBECONFIG_NOT_FOUND', 'kubeconfig /nope: no such file', '/nope'),
  InClusterConfigError: () => new InClusterConfigError('CLIENT_IN_CLUSTER_NO_ENV', 'not in a cluster: KUBERNETES_SERVICE_HOST is not set', 'KUBERNETES_SERVICE_HOST'),
  ManagerCacheSyncTimeoutError: () => new ManagerCacheSyncTimeoutError(1000, ['informer Pod (server https://127.0.0.1:1): ECONNREFUSED']),
  RbacDerivationError: () => new RbacDerivationError('no plural for example.com/v1 Widget'),
  ListWatchError: () => new ListWatchError('Pod', 'relist', new Error('connect ECONNREFUSED')),
  WatchDecodeError: () => new WatchDecodeError('not JSON', 10, '{oops'),
  UnknownResourceError: () => new UnknownResourceError('v1', 'Pod'),
  VeryShortWatchError: () => new VeryShortWatchError(5, '10'),
  WatchStalledError: () => new WatchStalledError(60_000, '10'),
  UnusableWatchEventError: () => new UnusableWatchEventError('no metadata', {}),
  ReflectorConfigError: () => new ReflectorConfigError('listWatch: pageSize must be an integer', { option: 'pageSize' }),
  ReflectorFatalError: () => new ReflectorFatalError('forbidden', { cause: new Error('403') }),
  ListTimeoutError: () => new ListTimeoutError(1_000),
  ListContinueLoopError: () => new ListContinueLoopError(3, 1),
  ListPageLimitError: () => new ListPageLimitError(10),
  UnexpectedObjectError: () => new UnexpectedObjectError('watch ADDED event', { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'x' } }, { types: [{ apiVersion: 'v1', kind: 'Pod' }] }, 'type'),
  WatchLineTooLongError: () => new WatchLineTooLongError(0, 1024),
  CacheError: () => new CacheError('object has no meta'),
  KeyError: () => new KeyError({}, new Error('no name')),
  TransformError: () => new TransformError({}, new Error('boom')),
  InvalidInputError: () => new InvalidInputError({ op: '?' }, 'unknown FIFO operation'),
  IndexNotFoundError: () => new IndexNotFoundError('byOwner'),
  IndexerConflictError: () => new IndexerConflictError(['byOwner'], 'conflict'),
  IndexFuncError: () => new IndexFuncError('byOwner', {}, new Error('boom')),
  InformerError: () => new InformerError('informer failed'),
  InformerConfigError: () => new InformerConfigError('stopGraceMs must be a finite number >= 0, got -1', { option: 'stopGraceMs' }),
  InformerStartedError: () => new InformerStartedError('addIndexers after start'),
  ListenerError: () => new ListenerError('l', { type: 'add', object: { metadata: { name: 'a' } }, isInInitialList: false }, new Error('boom')),
  InformerSourceError: () => new InformerSourceError('pods', new Error('boom')),
  InvalidRequestError: () => new InvalidRequestError('a request key must be a non-empty string, got ""'),
  WorkQueueOptionsError: () => new WorkQueueOptionsError('concurrency must be an integer, got 1.5'),
  RateLimiterOptionsError: () => new RateLimiterOptionsError('qps must be a finite number > 0, got 0', { option: 'qps' }),
  ReconcileAbortedError: () => new ReconcileAbortedError('unsubscribed'),
  ReconcileTimeoutError: () => new ReconcileTimeoutError(1_000),
  TerminalError: () => new TerminalError(new Error('bad spec')),
  LeaderElectionConfigError: () => new LeaderElectionConfigError('lock', 'Lock must not be nil.'),
  LeaderElectionHealthError: () => new LeaderElectionHealthError('my-lease'),
  LeaseNotInitializedError: () => new LeaseNotInitializedError(),
  LeadershipLostError: () => new LeadershipLostError(),
  ClusterRemovedError: () => new ClusterRemovedError('c', 'east', 'removed'),
  ReadYourWritesTimeoutError: () => new ReadYourWritesTimeoutError('c', 'ns/a', ['/ConfigMap ns/a@7'], 10_000),
  ClusterEventError: () => new ClusterEventError('c', 'east', 'needs a KubeClient'),
  KubeconfigSecretError: () => new KubeconfigSecretError('fleet', 'east', 'kubeconfig', 'has no data under key kubeconfig'),
  FencedWriteError: () => new FencedWriteError('PATCH', '/api/v1/namespaces/default/configmaps/a', { cause: new LeadershipLostError() }),
  ControllerError: () => new ControllerError('controller c is not running'),
  ControllerBuildError: () => new ControllerBuildError('must provide a reconcile function', { option: 'reconcile' }),
  ControllerStartedTwiceError: () => new ControllerStartedTwiceError('c'),
  AlreadyOwnedError: () => new AlreadyOwnedError('ns/pod', { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true }),
  WaitTimeoutError: () => new WaitTimeoutError('ns/pod', 1_000),
  CacheSyncTimeoutError: () => new CacheSyncTimeoutError('c', ['pods'], 1_000),
  FinalizerConflictError: () => new FinalizerConflictError('finalizer example.com/x: conflict'),
  ManagerAlreadyStartedError: () => new ManagerAlreadyStartedError(),
  StopEngagedError: () => new StopEngagedError(),
  CheckerAfterStartError: () => new CheckerAfterStartError(),
  DuplicateControllerNameError: () => new DuplicateControllerNameError('configmap-mirror', 'manager'),
  LeaderElectionLostError: () => new LeaderElectionLostError(),
  GracefulShutdownTimeoutError: () => new GracefulShutdownTimeoutError(30_000),
  CacheSyncError: () => new CacheSyncError('informers'),
  UncaughtError: () => new UncaughtError('uncaughtException', { controller: 'c', key: 'ns/a', reconcileId: 'r' }, { cause: new Error('boom') }),
  ManagerConfigError: () => new ManagerConfigError('LeaderElectionID must be configured', { option: 'leaderElection.id' }),
  StatusError: () => new StatusError({ kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' }),
  ProtobufDecodeError: () => new ProtobufDecodeError('malformed protobuf message'),
  CelCompileError: () => new CelCompileError("ERROR: <input>:1:1: undeclared reference to 'slef' (in container '')"),
  UnknownKindError: () => new UnknownKindError('example.com/v1', 'Widget'),
  DirectApiError: () => new DirectApiError(new StatusError({ kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'configmaps "a" already exists' })),
  WebhookConfigError: () => new WebhookConfigError('two webhooks are served at /convert', { option: 'webhooks' }),
  WebhookReviewError: () => new WebhookReviewError('/validate-example-com-v1-database', 'request.uid', 'missing'),
  WebhookBodyTooLargeError: () => new WebhookBodyTooLargeError('/convert', 1024),
  WebhookHandlerTimeoutError: () => new WebhookHandlerTimeoutError('/validate-example-com-v1-database', 9_000),
  WebhookHandlerError: () => new WebhookHandlerError('/validate-example-com-v1-database', 'default/db', new Error('boom')),
  WebhookTlsError: () => new WebhookTlsError('tls.crt, tls.key', 'unusable certificate or key: key values mismatch'),
  ApiServerConfigError: () => new ApiServerConfigError('startApiServer binds loopback only; got host 0.0.0.0', { option: 'host' }),
  EventuallyTimeoutError: () => new EventuallyTimeoutError('the copy exists', 1000, undefined, 'returned false', { startedAt: 0, endedAt: 1000, reconciles: [], pendingTimers: [], pendingRequeues: [], openWatches: 0, failedControllers: [] }),
  NotConvergedError: () => new NotConvergedError(1000, 10, { startedAt: 0, endedAt: 1000, reconciles: [], pendingTimers: [1005], pendingRequeues: [{ controller: 'widgets', key: 'default/a', dueAt: 1005 }], openWatches: 1, failedControllers: [] }),
};

describe('RxkubeError: every error class', () => {
  it('of the runtime entries extends RxkubeError and has a layer and a unique SCREAMING_SNAKE code', async () => {
    const doors = [root, ...(await Promise.all(LAYER_DOORS.map((d) => import(`../../src/${d}/index.ts`) as Promise<Record<string, unknown>>)))];
    const classes = [...new Set(doors.flatMap((d) => errorClasses(d)))];
    expect(classes.length).toBeGreaterThanOrEqual(30);
    expect(classes).toContain(RxkubeError);
    expect(classes).toContain(ConfigError);
    checkClasses(classes);
  });

  it('of every module under src/ does too, and codes are unique across all of them', async () => {
    const classes = await everySrcErrorClass();
    expect(classes.length).toBeGreaterThanOrEqual(48);
    checkClasses(classes);
    expect(classes.filter((c) => !ABSTRACT.has(c) && !(c.name in SAMPLES)).map((c) => c.name), 'classes without a sample below').toEqual([]);
  });

  it('builds instances carrying the class code and layer as own properties, named after the class', async () => {
    const classes = new Map((await everySrcErrorClass()).map((c) => [c.name, c]));
    for (const [name, make] of Object.entries(SAMPLES)) {
      const err = make() as RxkubeError;
      const cls = classes.get(name);
      expect(cls, name).toBeDefined();
      expect(err).toBeInstanceOf(cls as ErrorClass);
      expect(err).toBeInstanceOf(RxkubeError);
      expect(err).toBeInstanceOf(Error);
      expect(err.name).toBe(name);
      expect(err.message, name).not.toBe('');
      expect(Object.hasOwn(err, 'code') && Object.hasOwn(err, 'layer'), name).toBe(true);
      expect(err.layer).toBe(cls?.layer);
      // A few classes carry a finer code per instance (ApiError: the Status reason; the kubeconfig
      // errors: what is wrong), always in their layer's family.
      if (cls === KubeConfigError || cls === InClusterConfigError) expect(err.code, name).toMatch(/^CLIENT_(KUBECONFIG|IN_CLUSTER)_[A-Z_]+$/);
      else if (cls !== ApiError) expect(err.code, name).toBe(cls?.code);
    }
  });

  it('ApiError codes are API_<REASON>, distinct from every class code', async () => {
    const classCodes = new Set((await everySrcErrorClass()).map((c) => c.code).filter((c) => c !== undefined));
    for (const code of Object.values(API_ERROR_CODES)) {
      expect(code).toMatch(/^API_[A-Z_]+$/);
      expect(classCodes.has(code), code).toBe(false);
    }
    expect(new Set(Object.values(API_ERROR_CODES)).size).toBe(Object.values(API_ERROR_CODES).length);
  });
});

describe('RxkubeError behaviour', () => {
  it('keeps the cause', () => {
    const cause = new Error('socket closed');
    expect(new TerminalError(cause).cause).toBe(cause);
    expect(new ReflectorFatalError('fatal', { cause }).cause).toBe(cause);
    expect(new ManagerConfigError('bad', { cause }).cause).toBe(cause);
    expect(new ControllerBuildError('bad', { cause }).cause).toBe(cause);
    expect(new LeaderElectionLostError({ cause }).cause).toBe(cause);
    expect(new ApiError({ code: 500 }, { cause }).cause).toBe(cause);
    expect(new NetworkError('GET', '/x', cause).cause).toBe(cause);
  });

  it('keeps the existing instanceof relations of the layer bases', () => {
    expect(new KeyError({}, 'x')).toBeInstanceOf(CacheError);
    expect(new CacheSyncTimeoutError('c', [], 1)).toBeInstanceOf(ControllerError);
    expect(new FinalizerConflictError('x')).toBeInstanceOf(ControllerError);
    expect(new InformerStartedError('x')).toBeInstanceOf(InformerError);
    expect(new KeyError({}, 'x')).not.toBeInstanceOf(ControllerError);
  });

  it('ApiError: code from the reason, else from the HTTP status, else API_UNKNOWN; statusCode is the HTTP status', () => {
    const notFound = new ApiError({ kind: 'Status', code: 404, reason: 'NotFound' });
    expect(notFound).toMatchObject({ code: 'API_NOT_FOUND', statusCode: 404, reason: 'NotFound', layer: 'client' });
    expect(new ApiError({ code: 409, reason: 'Conflict' }).code).toBe('API_CONFLICT');
    expect(new ApiError({ code: 409, reason: 'AlreadyExists' }).code).toBe('API_ALREADY_EXISTS');
    expect(new ApiError({ code: 410, reason: 'Expired' }).code).toBe('API_EXPIRED');
    expect(new ApiError({}, { code: 429 }).code).toBe('API_TOO_MANY_REQUESTS');
    expect(new ApiError({ code: 500, reason: 'SomethingNew' }).code).toBe('API_INTERNAL_ERROR');
    expect(new ApiError({ code: 418, reason: 'toString' }).code).toBe('API_UNKNOWN');
    expect(new ApiError({}).code).toBe('API_UNKNOWN');
  });

  it('NetworkError: code CLIENT_NETWORK_FAILURE, Node’s code as causeCode', () => {
    const err = new NetworkError('GET', '/x', Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    expect(err).toMatchObject({ code: 'CLIENT_NETWORK_FAILURE', causeCode: 'ECONNREFUSED' });
  });
});

describe('ConfigError', () => {
  it('is the base of every option and config validation error, next to the layer base where there is one', () => {
    for (const make of [
      SAMPLES.ControllerBuildError, SAMPLES.ManagerConfigError, SAMPLES.InformerConfigError, SAMPLES.ReflectorConfigError,
      SAMPLES.WorkQueueOptionsError, SAMPLES.RateLimiterOptionsError, SAMPLES.LeaderElectionConfigError, SAMPLES.ApiServerConfigError,
      SAMPLES.FetchConfigError,
    ]) {
      const err = (make as () => Error)();
      expect(err, err.name).toBeInstanceOf(ConfigError);
      expect(err.name.endsWith('Error')).toBe(true);
      expect((err as ConfigError).code, err.name).toMatch(/_CONFIG_INVALID$/);
    }
    expect(new ControllerBuildError('x')).toBeInstanceOf(ControllerError);
    expect(new InformerConfigError('x')).toBeInstanceOf(InformerError);
    for (const other of [new ControllerError('x'), new ControllerStartedTwiceError('c'), new InformerStartedError('x'), new TerminalError('x'), new ApiError({})]) {
      expect(other, other.name).not.toBeInstanceOf(ConfigError);
    }
    expect(new ManagerConfigError('x')).not.toBeInstanceOf(ControllerBuildError);
    expect({ option: 'x' }).not.toBeInstanceOf(ConfigError);
  });

  it('names the option that was wrong', () => {
    const thrown = (f: () => unknown): ConfigError => {
      try {
        f();
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('did not throw');
    };
    expect(new LeaderElectionConfigError('retryPeriodMs', 'retryPeriodMs must be greater than zero')).toMatchObject({ field: 'retryPeriodMs', option: 'retryPeriodMs' });
    expect(thrown(() => checkDuration('maxWait', -1))).toMatchObject({ name: 'RateLimiterOptionsError', option: 'maxWait' });
    expect(thrown(() => bucketRateLimiter({ burst: 0.5 }))).toMatchObject({ option: 'burst', layer: 'workqueue' });
    expect(thrown(() => resolveListWatchOptions({ backoff: { maxMs: -1 } }))).toMatchObject({ name: 'ReflectorConfigError', option: 'backoff.maxMs' });
    expect(thrown(() => resolveManagerLeaderElection({ id: 'x', namespace: 'ns', leaseDurationMs: 1_000, renewDeadlineMs: 2_000 }))).toMatchObject({
      name: 'ManagerConfigError',
      option: 'leaderElection.leaseDurationMs',
    });
    expect(new ManagerConfigError('no option known').option).toBeUndefined();
  });
});
