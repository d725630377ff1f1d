/**
 * The example's webhooks, served by its manager (`rxkube/webhook`):
 * - defaulting: a Database without `spec.sizeGi` gets 10, and the `example.com/team` label;
 * - validating: `spec.team` is required and cannot change, `spec.sizeGi` is at most 100;
 * - conversion: v1 ⇄ v2 through the hub v2 (v1 keeps v2's `backups.enabled`, which it has no field
 *   for, in the annotation `databases.example.com/backups`, so nothing is lost either way).
 */
import { allow, conversionWebhook, deny, mutatingWebhook, spoke, validatingWebhook } from 'rxkube/webhook';
import { DATABASES_V1, type DatabaseV1, type DatabaseV2 } from './database.generated.js';

export const DEFAULT_SIZE_GI = 10;
export const MAX_SIZE_GI = 100;
export const TEAM_LABEL = 'example.com/team';
/** Where v1 keeps v2's `spec.backups.enabled` (`"true"` / `"false"`). */
export const BACKUPS_ANNOTATION = 'databases.example.com/backups';

export const defaultDatabase = mutatingWebhook({
  resource: DATABASES_V1,
  mutate: (draft) => {
    draft.spec ??= {};
    draft.spec.sizeGi ??= DEFAULT_SIZE_GI;
    if (draft.spec.team !== undefined) {
      draft.metadata ??= {};
      draft.metadata.labels = { ...draft.metadata.labels, [TEAM_LABEL]: draft.spec.team };
    }
  },
});

export const validateDatabase = validatingWebhook({
  resource: DATABASES_V1,
  validate: (req) => {
    const spec = req.object?.spec;
    if (spec?.team === undefined || spec.team === '') return deny('spec.team is required: every database belongs to a team');
    if (req.operation === 'UPDATE' && req.oldObject?.spec?.team !== undefined && req.oldObject.spec.team !== spec.team) {
      return deny(`spec.team is immutable (was ${req.oldObject.spec.team})`);
    }
    const size = spec.sizeGi ?? DEFAULT_SIZE_GI;
    if (size > MAX_SIZE_GI) return deny(`spec.sizeGi must be at most ${MAX_SIZE_GI}, got ${size}`);
    return size > MAX_SIZE_GI / 2 ? allow(`spec.sizeGi ${size} is more than half the limit`) : allow();
  },
});

/** v1 → hub (v2). */
export function v1ToV2(db: DatabaseV1): DatabaseV2 {
  const { spec, ...rest } = db;
  const out: DatabaseV2 = { ...rest, apiVersion: 'example.com/v2' };
  // Without a spec there is no field to move the annotation into: it stays an annotation.
  if (spec === undefined) return out;
  const { [BACKUPS_ANNOTATION]: backups, ...annotations } = db.metadata?.annotations ?? {};
  if (db.metadata !== undefined) {
    const { annotations: _dropped, ...metadata } = db.metadata;
    // The annotation held only what v2 has a field for: drop the emptied map, keep any other.
    out.metadata = backups !== undefined && Object.keys(annotations).length === 0 ? metadata : { ...metadata, ...(db.metadata.annotations === undefined ? {} : { annotations }) };
  }
  out.spec = {
    ...(spec.team === undefined ? {} : { owner: { team: spec.team } }),
    ...(spec.sizeGi === undefined ? {} : { storage: { sizeGi: spec.sizeGi } }),
    ...(backups === undefined ? {} : { backups: { enabled: backups === 'true' } }),
  };
  return out;
}

/** hub (v2) → v1. */
export function v2ToV1(db: DatabaseV2): DatabaseV1 {
  const { spec, ...rest } = db;
  const out: DatabaseV1 = { ...rest, apiVersion: 'example.com/v1' };
  const enabled = spec?.backups?.enabled;
  if (enabled !== undefined) out.metadata = { ...db.metadata, annotations: { ...db.metadata?.annotations, [BACKUPS_ANNOTATION]: String(enabled) } };
  if (spec !== undefined) {
    out.spec = {
      ...(spec.owner?.team === undefined ? {} : { team: spec.owner.team }),
      ...(spec.storage?.sizeGi === undefined ? {} : { sizeGi: spec.storage.sizeGi }),
    };
  }
  return out;
}

export const convertDatabases = conversionWebhook<DatabaseV2>({
  group: 'example.com',
  kind: 'Database',
  plural: 'databases',
  hub: 'v2',
  spokes: { v1: spoke<DatabaseV1, DatabaseV2>({ toHub: v1ToV2, fromHub: v2ToV1 }) },
});

/** Everything the example's webhook server serves. */
export const databaseWebhooks = [defaultDatabase, validateDatabase, convertDatabases] as const;
