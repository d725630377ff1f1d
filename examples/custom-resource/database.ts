/**
 * The custom resource of the example: a `Database` (databases.example.com/v1) that a team asks
 * for; the controller provisions it in an outside system and reports `status.phase`.
 */
import type { KubeObject, ObjectMeta, Resource } from 'rxkube';

export const DATABASES: Resource = { apiVersion: 'example.com/v1', kind: 'Database', plural: 'databases', namespaced: true };
export const CRDS: Resource = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false };

export interface Database extends KubeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: { readonly team?: string; readonly sizeGi?: number };
  readonly status?: { readonly phase?: 'Ready' | 'OverQuota'; readonly endpoint?: string; readonly observedGeneration?: number };
}

/** The CustomResourceDefinition, with a status subresource. */
export const databaseCrd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'databases.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'databases', singular: 'database', kind: 'Database' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { team: { type: 'string' }, sizeGi: { type: 'integer' } } },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

/** The custom index: databases by `spec.team`. */
export const BY_TEAM = 'team';
export const teamOf = (db: Database): string[] => (db.spec?.team === undefined ? [] : [db.spec.team]);

export function database(name: string, team: string, sizeGi = 10): Database {
  return { apiVersion: DATABASES.apiVersion, kind: DATABASES.kind, metadata: { name, namespace: 'default' }, spec: { team, sizeGi } };
}
