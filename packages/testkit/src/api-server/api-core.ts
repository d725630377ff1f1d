import type { KubeObject, UnstructuredObject } from 'rxkube';
import { lifecycleResources } from './access-review.js';
import { BuiltinAdmission } from './admission/index.js';
import { CRD_RESOURCE, CrdController } from './crd-controller.js';
import { admitCustomResource } from './crd-schema.js';
import { ruleCausesAfterSchema, validateRules } from './cel/crd-rules.js';
import { Faults } from './faults.js';
import { objectKey, ObjectStore } from './object-store.js';
import { ObjectService, type DeleteOptions } from './object-service.js';
import { rbacResources, type RbacOptions } from './rbac.js';
import { RequestHandler } from './request-handler.js';
import { RequestLog } from './request-log.js';
import { resourceId, ResourceRegistry, type ServedResource } from './resource-registry.js';
import { DirectApiError, UnknownKindError } from './server-errors.js';
import { invalid, StatusError } from './status-error.js';
import { StrategyRegistry } from './strategies/registry.js';
import { policyAttributes, ValidatingPolicyAdmission } from './admission/policy/policy-admission.js';
import { validatingAdmissionPolicyResources } from './admission/policy/policy-resources.js';
import { AdmissionRequestHolder } from './admission/policy/request-context.js';
import { WatchHub } from './watch-hub.js';
import { DEFAULT_KUBERNETES_VERSION, type KubernetesVersion } from './kubernetes-version.js';
import { WebhookGate } from './admission/webhooks/webhook-gate.js';
import { CrdConverter } from './admission/webhooks/crd-conversion.js';
import { StorageVersionWrites } from './admission/webhooks/storage-version.js';
import { webhookConfigurationStrategy } from './admission/webhooks/webhook-configuration-strategy.js';
import type { WebhookCallSettings } from './admission/webhooks/webhook-client.js';

/** What the server core needs to know, whatever serves it (HTTP, or in process). */
export interface ApiCoreOptions {
  readonly token?: string | undefined;
  readonly historyWindow?: number;
  readonly bookmarkIntervalMs?: number;
  readonly maxBodyBytes?: number;
  readonly defaultWatchTimeoutSeconds?: number;
  readonly requireNamespace?: boolean;
  /** Defaulting and validation of the built-in kinds as kube-apiserver (see `ApiServerOptions.strict`); default true. */
  readonly strict?: boolean;
  readonly namespaces?: readonly string[];
  readonly requestLogLimit?: number;
  /** Page `resourceVersion=0` lists by `limit` (kube-apiserver serves them whole). */
  readonly pageResourceVersionZeroLists?: boolean;
  /** RBAC authorization with token users; off when absent. */
  readonly rbac?: RbacOptions;
  /** How admission webhooks are reached (services, timeout scheduler). */
  readonly admissionWebhooks?: WebhookCallSettings;
  /** The emulated Kubernetes version (see `ApiServerOptions.kubernetesVersion`); default 1.34. */
  readonly kubernetesVersion?: KubernetesVersion;
}

/** Reads and writes of the store without HTTP (test setup, benchmarks). */
export interface DirectApi {
  /** The current resourceVersion (one counter across all resources). */
  readonly resourceVersion: number;
  /**
   * Creates objects directly (no HTTP), as fast as the store allows; namespaces are not checked
   * and `status` is kept (a POST drops it, as kube-apiserver does). Each object needs apiVersion
   * and kind. Watches see ADDED events. Returns the stored objects.
   */
  seed<T extends KubeObject>(objects: Iterable<T>): UnstructuredObject[];
  /** Creates one object directly (same checks as POST, 409 when it exists). */
  create<T extends KubeObject>(object: T): UnstructuredObject;
  /** Replaces one object directly (same checks as PUT, including resourceVersion conflicts). */
  update<T extends KubeObject>(object: T): UnstructuredObject;
  /** Deletes one object directly (finalizers honoured); returns the last state or undefined. */
  delete(apiVersion: string, kind: string, name: string, namespace?: string, options?: DeleteOptions): UnstructuredObject | undefined;
  /** Reads one object directly. */
  get(apiVersion: string, kind: string, name: string, namespace?: string): UnstructuredObject | undefined;
  /** Lists objects directly (all namespaces when `namespace` is omitted), sorted by namespace/name. */
  list(apiVersion: string, kind: string, namespace?: string): UnstructuredObject[];
}

/** The embedded API server without its listener: storage, resources, request handling. */
export interface ApiCore {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  readonly hub: WatchHub;
  readonly service: ObjectService;
  readonly requests: RequestLog;
  readonly faults: Faults;
  readonly handler: RequestHandler;
  readonly direct: DirectApi;
}

export function resolveKind(registry: ResourceRegistry, apiVersion: string | undefined, kind: string | undefined): ServedResource {
  const r = apiVersion !== undefined && kind !== undefined ? registry.byKind(apiVersion, kind) : undefined;
  if (r === undefined) throw new UnknownKindError(apiVersion, kind);
  return r;
}

function versionOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  return v.includes('/') ? v.slice(v.indexOf('/') + 1) : v;
}

/** A custom resource's structural defaults and pruning, without validation (what webhooks see). */
function defaultCustom(r: ServedResource, obj: UnstructuredObject): UnstructuredObject {
  const apiVersion = obj.apiVersion ?? '';
  const schema = r.schemas?.[apiVersion.slice(apiVersion.indexOf('/') + 1)];
  if (schema === undefined) return obj;
  const copy = structuredClone(obj) as Record<string, unknown>;
  admitCustomResource(copy, schema);
  return copy as UnstructuredObject;
}

/**
 * Defaults, prunes and validates a custom resource against its CRD version's structural schema,
 * then its `x-kubernetes-validations` rules (`old`: the stored object on update).
 */
function admitCustom(r: ServedResource, obj: UnstructuredObject, old: UnstructuredObject | undefined, warn: (text: string) => void): UnstructuredObject {
  const apiVersion = obj.apiVersion ?? '';
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const schema = r.schemas?.[version];
  if (schema === undefined) return obj;
  const copy = structuredClone(obj) as Record<string, unknown>;
  const schemaCauses = admitCustomResource(copy, schema);
  const causes = [...schemaCauses, ...ruleCausesAfterSchema(schemaCauses, copy, schema, old, warn)];
  if (causes.length > 0) throw invalid(r.kind, r.group, obj.metadata?.name ?? '', causes);
  return copy as UnstructuredObject;
}

/**
 * A custom resource's `/status` write: the CRD's validation rules run on the whole new object
 * against the stored one, as kube-apiserver's status strategy does (rules on unchanged values
 * ratchet to warnings).
 */
function admitCustomStatus(r: ServedResource, obj: UnstructuredObject, old: UnstructuredObject, warn: (text: string) => void): void {
  const apiVersion = obj.apiVersion ?? '';
  const schema = r.schemas?.[apiVersion.slice(apiVersion.indexOf('/') + 1)];
  if (schema === undefined) return;
  const causes = validateRules(obj, schema, old, warn);
  if (causes.length > 0) throw invalid(r.kind, r.group, obj.metadata?.name ?? '', causes);
}

function rethrow(e: unknown): never {
  if (e instanceof StatusError) throw new DirectApiError(e);
  throw e;
}

/**
 * Builds the server core: the store, the resource registry (with the CRD controller), the object
 * service, the request handler, the request log and fault injection; creates the namespaces.
 * `restart` is what `faults.restart()` does (closing and reopening a listener, if there is one).
 */
export function createApiCore(options: ApiCoreOptions, restart: (downMs: number) => Promise<void>): ApiCore {
  const store = new ObjectStore(options.historyWindow ?? 100_000);
  const kubernetesVersion = options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const registry = new ResourceRegistry(undefined, kubernetesVersion);
  for (const r of [...lifecycleResources(), ...rbacResources()]) if (registry.byGroupPlural(r.group, r.plural) === undefined) registry.add(r);
  // ValidatingAdmissionPolicy and its binding: admissionregistration.k8s.io/v1 from 1.30.
  for (const r of validatingAdmissionPolicyResources()) if (registry.byGroupPlural(r.group, r.plural) === undefined) registry.addIfServed(r, { since: 30 });
  const hub = new WatchHub(store);
  const crds = new CrdController(registry, store, hub);
  const admission = options.strict === false ? undefined : new BuiltinAdmission(store);
  const strategies = new StrategyRegistry();
  strategies.register(CRD_RESOURCE, { admitCreate: (r, obj) => crds.admitCreate(r, obj), admitUpdate: (r, obj) => crds.admitUpdate(r, obj) });
  for (const plural of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    strategies.register({ group: 'admissionregistration.k8s.io', plural, kind: plural.startsWith('m') ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration', custom: false }, webhookConfigurationStrategy);
  }
  const admissionRequests = new AdmissionRequestHolder();
  const warn = (text: string) => admissionRequests.context.warn(text);
  strategies.registerCustom({ admitCreate: (r, obj) => admitCustom(r, obj, undefined, warn), admitUpdate: (r, obj, old) => admitCustom(r, obj, old, warn) });
  const webhookSettings: WebhookCallSettings = {
    ...options.admissionWebhooks,
    serviceExists: (namespace, name) => store.get(resourceId({ group: '', plural: 'services' }), objectKey(namespace, name)) !== undefined,
  };
  const webhooks = new WebhookGate(
    store,
    (r, obj, old) => {
      if (r.custom) return defaultCustom(r, obj);
      const strategy = strategies.for(r);
      if (strategy.admitCreate !== undefined || admission === undefined) return obj;
      return admission.defaultsOnly(r, strategy, obj, old);
    },
    webhookSettings,
  );
  const policies = new ValidatingPolicyAdmission(store, registry, admissionRequests);
  const service = new ObjectService(store, strategies, {
    webhooks,
    requireNamespace: options.requireNamespace ?? true,
    decodeDefaults: (r, obj) => {
      if (r.custom || admission === undefined) return obj;
      const strategy = strategies.for(r);
      return strategy.admitCreate !== undefined ? obj : admission.decodeDefaults(r, strategy, obj);
    },
    admitCreate: (r, obj) => {
      const strategy = strategies.for(r);
      const admitted = strategy.admitCreate !== undefined ? strategy.admitCreate(r, obj) : admission !== undefined ? admission.admitCreate(r, strategy, obj) : obj;
      policies.admit(policyAttributes('CREATE', r, admitted, undefined));
      return admitted;
    },
    admitUpdate: (r, obj, old) => {
      const strategy = strategies.for(r);
      const admitted = strategy.admitUpdate !== undefined ? strategy.admitUpdate(r, obj, old) : admission !== undefined ? admission.admitUpdate(r, strategy, obj, old) : obj;
      policies.admit(policyAttributes('UPDATE', r, admitted, old));
      return admitted;
    },
    admitStatusUpdate: (r, obj, old) => {
      if (r.custom) admitCustomStatus(r, obj, old, warn);
      policies.admit(policyAttributes('UPDATE', r, obj, old, 'status'));
    },
    admitDelete: (r, old) => policies.admit(policyAttributes('DELETE', r, undefined, old)),
  });
  const requests = new RequestLog(options.requestLogLimit);
  const faults = new Faults(hub, store, restart);
  const handler = new RequestHandler(registry, service, hub, faults, requests, {
    admissionRequests,
    token: options.token,
    maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
    defaultWatchTimeoutSeconds: options.defaultWatchTimeoutSeconds,
    pageResourceVersionZeroLists: options.pageResourceVersionZeroLists,
    kubernetesVersion,
    ...(options.rbac !== undefined ? { rbac: options.rbac } : {}),
  }, webhooks, new CrdConverter(store, webhookSettings), new StorageVersionWrites(store, webhookSettings));
  const nsType = resolveKind(registry, 'v1', 'Namespace');
  for (const ns of options.namespaces ?? ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    service.create(nsType, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  }

  const createOne = (o: KubeObject, skipNamespaceCheck: boolean): UnstructuredObject => {
    const r = resolveKind(registry, o.apiVersion, o.kind);
    try {
      const obj = service.decode(r, versionOf(o.apiVersion), o);
      const entry = service.create(r, r.namespaced ? (o.metadata?.namespace ?? 'default') : undefined, obj, { skipNamespaceCheck, keepStatus: skipNamespaceCheck });
      return entry.object;
    } catch (e) {
      return rethrow(e);
    }
  };

  const direct: DirectApi = {
    get resourceVersion() {
      return store.resourceVersion;
    },
    seed(objects) {
      const out: UnstructuredObject[] = [];
      for (const o of objects) out.push(createOne(o, true));
      return out;
    },
    create: (o) => createOne(o, false),
    update(o) {
      const r = resolveKind(registry, o.apiVersion, o.kind);
      try {
        const obj = service.decode(r, versionOf(o.apiVersion), o);
        return service.update(r, o.metadata?.namespace, o.metadata?.name ?? '', obj).object;
      } catch (e) {
        return rethrow(e);
      }
    },
    delete(apiVersion, kind, name, namespace, opts) {
      const r = resolveKind(registry, apiVersion, kind);
      if (store.get(resourceId(r), objectKey(r.namespaced ? namespace : undefined, name)) === undefined) return undefined;
      try {
        return service.delete(r, namespace, name, opts).entry.object;
      } catch (e) {
        return rethrow(e);
      }
    },
    get(apiVersion, kind, name, namespace) {
      const r = resolveKind(registry, apiVersion, kind);
      return store.get(resourceId(r), objectKey(r.namespaced ? namespace : undefined, name))?.object;
    },
    list(apiVersion, kind, namespace) {
      const r = resolveKind(registry, apiVersion, kind);
      const all = store.snapshot(resourceId(r));
      return (namespace === undefined ? all : all.filter((e) => e.key.startsWith(`${namespace}/`))).map((e) => e.object);
    },
  };
  return { store, registry, hub, service, requests, faults, handler, direct };
}
