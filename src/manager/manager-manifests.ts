import type { Manager } from './manager.js';
import { ManagerConfigError } from './manager-errors.js';
import { rbacManifest, type RbacManifestOptions } from './rbac.js';
import { webhookManifest, type WebhookManifestOptions } from '../webhook/webhook-manifests.js';

/** Options of {@link managerManifests}. */
export interface ManagerManifestsOptions extends RbacManifestOptions {
  /**
   * How the API server reaches the manager's webhook server (a Service or a URL, and the CA);
   * needed when the manager serves webhooks (`mgr.webhooks()` not empty). The configurations take
   * `name` and `labels` from the RBAC options unless given here.
   */
  readonly webhooks?: Omit<WebhookManifestOptions, 'name' | 'labels'> & Partial<Pick<WebhookManifestOptions, 'name' | 'labels'>>;
}

/**
 * Everything a manager needs installed to run in a cluster, derived from what it runs, as YAML
 * documents separated by `---`: the ServiceAccount and the roles of `mgr.rbac()` (see
 * `rbacManifest`), then, when it serves webhooks, the MutatingWebhookConfiguration, the
 * ValidatingWebhookConfiguration and each CRD's `spec.conversion` stanza of `mgr.webhooks()` (see
 * `webhookManifest` of `rxkube/webhook`). Deterministic: the same manager gives the same text.
 * Throws `ManagerConfigError` when the manager serves webhooks and `options.webhooks` is missing.
 *
 * ```ts
 * process.stdout.write(await managerManifests(mgr, {
 *   name: 'my-operator', namespace: 'ops',
 *   webhooks: { target: { service: { name: 'my-operator-webhook', namespace: 'ops' } }, injectCaFrom: 'ops/my-operator-webhook' },
 * }));
 * ```
 */
export async function managerManifests(mgr: Pick<Manager, 'rbac' | 'webhooks'>, options: ManagerManifestsOptions): Promise<string> {
  const { webhooks: target, ...rbacOptions } = options;
  const rbac = rbacManifest(await mgr.rbac(), rbacOptions);
  const webhooks = mgr.webhooks();
  if (webhooks.length === 0) return rbac;
  if (target === undefined) {
    throw new ManagerConfigError(
      `manager manifests for ${options.namespace}/${options.name}: the manager serves ${webhooks.length} webhook(s) (${webhooks.map((w) => w.path).join(', ')}), but options.webhooks does not say how the API server reaches them`,
      { option: 'webhooks' },
    );
  }
  const webhookOptions: WebhookManifestOptions = {
    ...target,
    name: target.name ?? options.name,
    ...(target.labels ?? options.labels ? { labels: target.labels ?? options.labels } : {}),
  };
  return `${rbac}---\n${webhookManifest(webhooks, webhookOptions)}`;
}
