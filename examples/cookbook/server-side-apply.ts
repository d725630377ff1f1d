// Keeps the settings this program owns in a ConfigMap with server-side apply: it sends the fields
// it owns, with the values it wants; the API server merges them with other managers' fields.
import { ApiError, isConflict, resources, type K8s, type KubeClient } from 'rxkube';

export const FIELD_MANAGER = 'cookbook-settings';

export function applySettings(client: KubeClient, namespace: string, name: string, settings: Record<string, string>, force = false): Promise<K8s.ConfigMap> {
  const configMaps = client.objects(resources.configMaps, namespace, { fieldManager: FIELD_MANAGER });
  // What was applied before and is left out now is removed; other managers' fields stay.
  return configMaps.apply({ metadata: { name, labels: { 'app.kubernetes.io/managed-by': FIELD_MANAGER } }, data: settings }, { force });
}

/** The fields a refused apply (409) found held by another manager, e.g. `.data.mode: conflict with "kubectl"`. */
export function conflictsOf(err: unknown): string[] {
  if (!(err instanceof ApiError) || !isConflict(err)) return [];
  return (err.status.details?.causes ?? [])
    .filter((cause) => cause.reason === 'FieldManagerConflict')
    .map((cause) => `${cause.field}: ${cause.message}`);
}
