/**
 * The example's manager, built the same way whether it runs (`main.ts`) or only derives its
 * manifests (`manifests.ts`): the shared informers (with the `team` index), the Database
 * controller, and the webhook server with the Database webhooks. What the manifests list is
 * therefore what runs.
 */
import { InformerFactory, manager, type KubeClient, type Manager, type ManagerOptions } from 'rxkube';
import { webhookServer, type WebhookServer, type WebhookTlsOptions } from 'rxkube/webhook';
import { databaseController } from './database-controller.js';
import { databaseWebhooks } from './database-webhooks.js';
import type { Provisioner } from './provisioner.js';

export interface DatabaseManagerOptions {
  readonly client: KubeClient;
  /** The namespace the informers and the controller watch. */
  readonly namespace: string;
  readonly provisioner: Provisioner;
  /** Most databases one team may have provisioned. */
  readonly quotaPerTeam: number;
  /** The webhook server's certificate (files in a cluster, a pair in memory in the demo). */
  readonly webhookTls: WebhookTlsOptions;
  /** Default 9443; 0 picks a free port. */
  readonly webhookPort?: number;
  readonly webhookHost?: string;
  /** Called after each reconcile with a one-line summary. */
  readonly onReconcile?: (line: string) => void;
  /** Further manager options (logging, probes, leader election). */
  readonly manager?: Omit<ManagerOptions, 'client'>;
}

export interface DatabaseManager {
  readonly mgr: Manager;
  readonly informers: InformerFactory;
  readonly webhooks: WebhookServer;
}

export function databaseManager(o: DatabaseManagerOptions): DatabaseManager {
  const informers = new InformerFactory(o.client, { namespace: o.namespace });
  const ctrl = databaseController({ informers, client: o.client, provisioner: o.provisioner, quotaPerTeam: o.quotaPerTeam, ...(o.onReconcile !== undefined ? { onReconcile: o.onReconcile } : {}) });
  const webhooks = webhookServer({
    webhooks: databaseWebhooks,
    tls: o.webhookTls,
    ...(o.webhookPort !== undefined ? { port: o.webhookPort } : {}),
    ...(o.webhookHost !== undefined ? { host: o.webhookHost } : {}),
  });
  const mgr = manager({ ...o.manager, client: o.client });
  mgr.add(informers.runnable());
  mgr.add(ctrl);
  mgr.add(webhooks);
  return { mgr, informers, webhooks };
}
