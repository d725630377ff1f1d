import { dump } from 'js-yaml';
import { splitApiVersion } from '../api/resource.js';
import type { AdmissionWebhook } from './admission-webhook.js';
import type { ConversionWebhook } from './conversion-webhook.js';
import type { Webhook } from './webhook-server.js';
import { WebhookConfigError } from './webhook-errors.js';

/**
 * How the API server reaches the webhook server: a Service in the cluster (the usual way; `port`
 * default 443), or a URL (`https://host:port`, e.g. loopback in development); each webhook's path
 * is appended.
 */
export type WebhookClientTarget =
  | { readonly service: { readonly name: string; readonly namespace: string; readonly port?: number } }
  | { readonly url: string };

/** Options of {@link webhookConfigurations} and {@link crdConversion}. */
export interface WebhookManifestOptions {
  /** Name of the MutatingWebhookConfiguration and ValidatingWebhookConfiguration. */
  readonly name: string;
  readonly target: WebhookClientTarget;
  /** PEM of the CA that signed the serving certificate; written as `caBundle`. */
  readonly caBundle?: string;
  /**
   * With cert-manager: `<namespace>/<certificate>`, written as the `cert-manager.io/inject-ca-from`
   * annotation, so cert-manager fills in `caBundle`.
   */
  readonly injectCaFrom?: string;
  /** Labels on each configuration. */
  readonly labels?: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

function clientConfig(path: string, o: WebhookManifestOptions): Json {
  const ca = o.caBundle === undefined ? {} : { caBundle: Buffer.from(o.caBundle).toString('base64') };
  if ('url' in o.target) return { url: `${o.target.url.replace(/\/+$/, '')}${path}`, ...ca };
  const s = o.target.service;
  return { service: { name: s.name, namespace: s.namespace, path, port: s.port ?? 443 }, ...ca };
}

function metadata(o: WebhookManifestOptions): Json {
  return {
    name: o.name,
    ...(o.labels === undefined || Object.keys(o.labels).length === 0 ? {} : { labels: o.labels }),
    ...(o.injectCaFrom === undefined ? {} : { annotations: { 'cert-manager.io/inject-ca-from': o.injectCaFrom } }),
  };
}

function entry(w: AdmissionWebhook, o: WebhookManifestOptions): Json {
  const { group, version } = splitApiVersion(w.resource.apiVersion);
  if (w.resource.plural === undefined) {
    throw new WebhookConfigError(`webhook ${w.path}: its resource ${w.resource.kind} (${w.resource.apiVersion}) needs a plural for the configuration's rules`, { option: 'resource.plural' });
  }
  return {
    name: w.name,
    admissionReviewVersions: ['v1', 'v1beta1'],
    clientConfig: clientConfig(w.path, o),
    rules: [
      {
        apiGroups: [group],
        apiVersions: [version],
        operations: [...w.operations],
        resources: [w.resource.plural],
        scope: w.resource.namespaced === undefined ? '*' : w.resource.namespaced ? 'Namespaced' : 'Cluster',
      },
    ],
    // Requests for other versions of the resource reach it converted to this one.
    matchPolicy: 'Equivalent',
    failurePolicy: w.failurePolicy,
    sideEffects: w.sideEffects,
    timeoutSeconds: Math.min(30, Math.max(1, Math.ceil(w.timeoutMs / 1000) + 1)),
    ...(w.namespaceSelector === undefined ? {} : { namespaceSelector: w.namespaceSelector }),
    ...(w.objectSelector === undefined ? {} : { objectSelector: w.objectSelector }),
  };
}

/**
 * The MutatingWebhookConfiguration and ValidatingWebhookConfiguration (`admissionregistration.k8s.io/v1`)
 * for the admission webhooks among `webhooks` (each only when it has some), one entry per webhook,
 * in the order given: its rules (group, version, plural, scope, operations), path, failure policy,
 * side effects and `timeoutSeconds` (the handler's timeout plus a second, so the handler's own
 * timeout denial arrives first; at most 30).
 */
export function webhookConfigurations(webhooks: readonly Webhook[], options: WebhookManifestOptions): Json[] {
  const admission = webhooks.filter((w): w is AdmissionWebhook => w.type !== 'conversion');
  const out: Json[] = [];
  const mutating = admission.filter((w) => w.type === 'mutating');
  const validating = admission.filter((w) => w.type === 'validating');
  const api = 'admissionregistration.k8s.io/v1';
  if (mutating.length > 0) out.push({ apiVersion: api, kind: 'MutatingWebhookConfiguration', metadata: metadata(options), webhooks: mutating.map((w) => ({ ...entry(w, options), reinvocationPolicy: 'Never' })) });
  if (validating.length > 0) out.push({ apiVersion: api, kind: 'ValidatingWebhookConfiguration', metadata: metadata(options), webhooks: validating.map((w) => entry(w, options)) });
  return out;
}

/**
 * The `spec.conversion` stanza of the CRD that `webhook` converts (`apiextensions.k8s.io/v1`):
 * strategy `Webhook`, ConversionReview `v1`, and where to call it.
 */
export function crdConversion(webhook: ConversionWebhook, options: Pick<WebhookManifestOptions, 'target' | 'caBundle'>): Json {
  return {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1'], clientConfig: clientConfig(webhook.path, { name: '', ...options }) },
  };
}

/** The name of the CRD a conversion webhook serves (`<plural>.<group>`). */
export function crdNameOf(webhook: ConversionWebhook): string {
  return `${webhook.plural}.${webhook.group}`;
}

/**
 * {@link webhookConfigurations} as YAML documents separated by `---`, then, for each conversion
 * webhook, a comment line naming its CRD followed by the CRD's `spec.conversion` stanza (to merge
 * into the CRD, e.g. as a kustomize patch). Deterministic: the same webhooks give the same text.
 */
export function webhookManifest(webhooks: readonly Webhook[], options: WebhookManifestOptions): string {
  const docs = webhookConfigurations(webhooks, options).map((d) => yaml(d));
  for (const w of webhooks) {
    if (w.type !== 'conversion') continue;
    docs.push(
      yaml({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crdNameOf(w) },
        spec: { conversion: crdConversion(w, options) },
      }),
    );
  }
  return docs.join('---\n');
}

function yaml(doc: Json): string {
  return dump(doc, { lineWidth: -1, noRefs: true });
}
