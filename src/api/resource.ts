/**
 * Identifies a resource type on the API server. Built-in or custom, resolved by discovery from
 * `{ apiVersion, kind }` or given explicitly.
 */
export interface Resource {
  /** `v1` for core, `group/version` otherwise (e.g. `apps/v1`). */
  readonly apiVersion: string;
  readonly kind: string;
  /** Lower-case plural used in URLs, e.g. `pods`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

/** Splits an apiVersion into group ('' for core) and version. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
