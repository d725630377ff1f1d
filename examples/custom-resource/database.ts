/**
 * The custom resource of the example: a `Database` (databases.example.com/v1) that a team asks
 * for; the controller provisions it in an outside system and reports `status.phase`. Its type and
 * descriptor (`Database`, `DATABASES`) are generated from `database-crd.yaml` by
 * `rxkube generate-types` (`npm run generate-types:examples`); a test fails when they drift.
 */
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { resources, type K8s } from 'rxkube';
import { DATABASES, type Database } from './database.generated.js';

export { DATABASES, type Database };
export const CRDS = resources.customResourceDefinitions;

/** The CustomResourceDefinition (with a status subresource), as in `database-crd.yaml`. */
export const databaseCrd = load(readFileSync(new URL('./database-crd.yaml', import.meta.url), 'utf8')) as K8s.CustomResourceDefinition;

/** The custom index: databases by `spec.team`. */
export const BY_TEAM = 'team';
export const teamOf = (db: Database): string[] => (db.spec?.team === undefined ? [] : [db.spec.team]);

export function database(name: string, team: string, sizeGi = 10): Database {
  return { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name, namespace: 'default' }, spec: { team, sizeGi } };
}
