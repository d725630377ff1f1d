/**
 * The webhooks of the stored MutatingWebhookConfigurations and ValidatingWebhookConfigurations,
 * read as kube-apiserver 1.20 sees them: the defaults of the version each was written in
 * (`admissionregistration.k8s.io/v1` or `v1beta1`) filled in, ordered by configuration name and
 * then by position in the configuration.
 */
import type { ObjectStore } from '../../object-store.js';
import { resourceId } from '../../resource-registry.js';

type Obj = Record<string, unknown>;

/** One rule of a webhook (`RuleWithOperations`). */
export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  /** `*` (default), `Cluster` or `Namespaced`. */
  readonly scope: string;
}

/** A `metav1.LabelSelector` as stored. */
export interface WebhookLabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** Where a webhook is reached (`clientConfig`). */
export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: { readonly namespace: string; readonly name: string; readonly path?: string; readonly port: number };
  /** PEM bundle (decoded from the base64 `caBundle`) that verifies the webhook's certificate. */
  readonly caPem?: string;
}

/** One webhook with its defaults applied. */
export interface AdmissionWebhook {
  /** `mutating` or `validating`. */
  readonly type: 'mutating' | 'validating';
  readonly configurationName: string;
  /** Position in the configuration's `webhooks`. */
  readonly index: number;
  /** Identifies the webhook across reinvocations (configuration name and index). */
  readonly uid: string;
  readonly name: string;
  readonly clientConfig: WebhookClientConfig;
  readonly rules: readonly WebhookRule[];
  /** `Fail` or `Ignore`. */
  readonly failurePolicy: string;
  /** `Exact` or `Equivalent`. */
  readonly matchPolicy: string;
  readonly namespaceSelector: WebhookLabelSelector;
  readonly objectSelector: WebhookLabelSelector;
  /** `None`, `NoneOnDryRun`, `Some` or `Unknown`; undefined when unset. */
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly admissionReviewVersions: readonly string[];
  /** Mutating only: `Never` or `IfNeeded`. */
  readonly reinvocationPolicy: string;
}

/** Storage ids of the two configuration resources. */
export const MUTATING_CONFIGURATIONS_ID = resourceId({ group: 'admissionregistration.k8s.io', plural: 'mutatingwebhookconfigurations' });
export const VALIDATING_CONFIGURATIONS_ID = resourceId({ group: 'admissionregistration.k8s.io', plural: 'validatingwebhookconfigurations' });

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function obj(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

function clientConfigOf(v: unknown): WebhookClientConfig {
  const c = obj(v) ?? {};
  const svc = obj(c['service']);
  const ca = typeof c['caBundle'] === 'string' && c['caBundle'] !== '' ? Buffer.from(c['caBundle'], 'base64').toString('utf8') : undefined;
  return {
    ...(typeof c['url'] === 'string' ? { url: c['url'] } : {}),
    ...(svc !== undefined
      ? {
          service: {
            namespace: String(svc['namespace'] ?? ''),
            name: String(svc['name'] ?? ''),
            ...(typeof svc['path'] === 'string' ? { path: svc['path'] } : {}),
            port: typeof svc['port'] === 'number' ? svc['port'] : 443,
          },
        }
      : {}),
    ...(ca !== undefined ? { caPem: ca } : {}),
  };
}

/** One webhook entry with the defaults of `version` (v1 or v1beta1), as kube-apiserver 1.20 defaults them. */
export function webhookOf(type: 'mutating' | 'validating', version: string, configurationName: string, index: number, raw: Obj): AdmissionWebhook {
  const v1 = version === 'v1';
  const str = (k: string, d: string): string => (typeof raw[k] === 'string' && raw[k] !== '' ? (raw[k] as string) : d);
  const timeout = typeof raw['timeoutSeconds'] === 'number' ? raw['timeoutSeconds'] : v1 ? 10 : 30;
  const reviewVersions = strings(raw['admissionReviewVersions']);
  return {
    type,
    configurationName,
    index,
    uid: `${configurationName}/${index}`,
    name: str('name', ''),
    clientConfig: clientConfigOf(raw['clientConfig']),
    rules: (Array.isArray(raw['rules']) ? (raw['rules'] as unknown[]) : []).map((r) => {
      const o = obj(r) ?? {};
      return {
        operations: strings(o['operations']),
        apiGroups: strings(o['apiGroups']),
        apiVersions: strings(o['apiVersions']),
        resources: strings(o['resources']),
        scope: typeof o['scope'] === 'string' && o['scope'] !== '' ? o['scope'] : '*',
      };
    }),
    failurePolicy: str('failurePolicy', v1 ? 'Fail' : 'Ignore'),
    matchPolicy: str('matchPolicy', v1 ? 'Equivalent' : 'Exact'),
    namespaceSelector: (obj(raw['namespaceSelector']) ?? {}) as WebhookLabelSelector,
    objectSelector: (obj(raw['objectSelector']) ?? {}) as WebhookLabelSelector,
    sideEffects: typeof raw['sideEffects'] === 'string' && raw['sideEffects'] !== '' ? raw['sideEffects'] : v1 ? undefined : 'Unknown',
    timeoutSeconds: timeout,
    admissionReviewVersions: reviewVersions.length > 0 ? reviewVersions : v1 ? [] : ['v1beta1'],
    reinvocationPolicy: type === 'mutating' ? str('reinvocationPolicy', 'Never') : 'Never',
  };
}

function read(store: ObjectStore, type: 'mutating' | 'validating'): AdmissionWebhook[] {
  const id = type === 'mutating' ? MUTATING_CONFIGURATIONS_ID : VALIDATING_CONFIGURATIONS_ID;
  const configs = store
    .snapshot(id)
    .map((e) => e.object as Obj)
    .sort((a, b) => {
      const an = String((a['metadata'] as Obj | undefined)?.['name'] ?? '');
      const bn = String((b['metadata'] as Obj | undefined)?.['name'] ?? '');
      return an < bn ? -1 : an > bn ? 1 : 0;
    });
  const out: AdmissionWebhook[] = [];
  for (const c of configs) {
    const apiVersion = typeof c['apiVersion'] === 'string' ? c['apiVersion'] : '';
    const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
    const name = String((c['metadata'] as Obj | undefined)?.['name'] ?? '');
    const hooks = Array.isArray(c['webhooks']) ? (c['webhooks'] as unknown[]) : [];
    hooks.forEach((h, i) => {
      const o = obj(h);
      if (o !== undefined) out.push(webhookOf(type, version, name, i, o));
    });
  }
  return out;
}

/** The mutating webhooks, in the order kube-apiserver calls them. */
export function mutatingWebhooks(store: ObjectStore): AdmissionWebhook[] {
  return read(store, 'mutating');
}

/** The validating webhooks (called in parallel). */
export function validatingWebhooks(store: ObjectStore): AdmissionWebhook[] {
  return read(store, 'validating');
}

/** Whether any webhook configuration is stored (no request pays for webhooks otherwise). */
export function anyWebhookConfiguration(store: ObjectStore): boolean {
  // Counted, not listed: asked on every write, and a list would build its snapshot key each time.
  return store.count(MUTATING_CONFIGURATIONS_ID) > 0 || store.count(VALIDATING_CONFIGURATIONS_ID) > 0;
}
