/**
 * The Database controller: provisions each Database in the {@link Provisioner}, guarded by a
 * finalizer so the instance is released before the Database goes away, and keeps each team within
 * its quota, using the informer's custom `team` index. The status is written as a draft edit
 * (`editStatus`), so an unchanged status costs no request.
 */
import {
  controller,
  finalizer,
  indexMapper,
  informerSource,
  type Controller,
  type InformerFactory,
  type KubeClient,
} from 'rxkube';
import type { Cached } from 'rxkube';
import { BY_TEAM, DATABASES, teamOf, type Database } from './database.js';
import type { Provisioner } from './provisioner.js';

export const FINALIZER = 'databases.example.com/deprovision';

export interface DatabaseControllerOptions {
  readonly informers: InformerFactory;
  readonly client: KubeClient;
  readonly provisioner: Provisioner;
  /** Most databases one team may have provisioned. */
  readonly quotaPerTeam: number;
  /** Called after each reconcile with a one-line summary. */
  readonly onReconcile?: (line: string) => void;
}

export function databaseController(options: DatabaseControllerOptions): Controller<Database> {
  const informer = options.informers.for(DATABASES, { indexers: { [BY_TEAM]: teamOf } });
  const databases = informerSource(informer);
  const say = options.onReconcile ?? (() => undefined);

  /** The team's databases that are not being deleted, oldest first (they get the quota first). */
  const liveTeam = (team: string): Cached<Database>[] =>
    informer.store
      .byIndex(BY_TEAM, team)
      .filter((d) => d.metadata.deletionTimestamp === undefined)
      .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || a.metadata.name.localeCompare(b.metadata.name));

  return controller<Database>({
    name: 'database',
    for: databases,
    // A change to one database can move another of its team in or out of the quota: through the
    // team index, every database event also wakes the rest of its team.
    watches: [{ source: databases, map: indexMapper(informer.store, BY_TEAM, (db: Database) => teamOf(db)) }],
    client: options.client,
    // The writes (the finalizer's draft edits, the status edits), for the derived RBAC (`--print-manifests`).
    permissions: [
      { resource: DATABASES, verbs: ['patch'] },
      { resource: DATABASES, subresource: 'status', verbs: ['patch'] },
    ],
    reconcile: async (request, ctx) => {
      const db = ctx.object;
      if (db === undefined) return; // gone: the finalizer already released it
      const id = `${request.namespace ?? ''}/${request.name}`;
      const team = db.spec?.team ?? '';
      return finalizer(db, {
        name: FINALIZER,
        client: ctx.objects(),
        signal: ctx.signal,
        apply: async (current) => {
          const rank = liveTeam(team).findIndex((d) => d.metadata.name === request.name);
          const withinQuota = rank >= 0 && rank < options.quotaPerTeam;
          let status: Database['status'];
          if (withinQuota) {
            status = { phase: 'Ready', endpoint: options.provisioner.ensure(id, team, db.spec?.sizeGi ?? 10) };
          } else {
            options.provisioner.release(id);
            status = { phase: 'OverQuota' };
          }
          status = { ...status, observedGeneration: current.metadata?.generation ?? 0 };
          // A draft edit of the status subresource: only the fields that differ are sent (a
          // stale `endpoint` is removed), and nothing at all when the status is already right.
          const updated = await ctx.objects().editStatus(current, (draft) => {
            draft.status = status;
          }, { signal: ctx.signal, store: ctx.store });
          if (updated !== current) say(`reconciled ${id} (team ${team}): ${status.phase}${status.endpoint === undefined ? '' : ` at ${status.endpoint}`}`);
        },
        cleanup: () => {
          options.provisioner.release(id);
          say(`cleanup ${id}: instance released, removing the finalizer`);
        },
      });
    },
  });
}
