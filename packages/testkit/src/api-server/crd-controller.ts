import type { UnstructuredObject } from 'rxkube';
import type { ObjectStore, StoreEvent } from './object-store.js';
import { crdProblems, resourceFromCrd, resourceId, type ResourceRegistry, type ServedResource } from './resource-registry.js';
import { invalid } from './status-error.js';
import { crdRuleProblems } from './cel/crd-rule-check.js';
import type { WatchHub } from './watch-hub.js';

/** The CustomResourceDefinition resource (its names). */
export const CRD_RESOURCE = { group: 'apiextensions.k8s.io', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', custom: false } as const;

/** Storage id of CustomResourceDefinitions. */
export const CRD_RESOURCE_ID = resourceId(CRD_RESOURCE);

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * What kube-apiserver's apiextensions controllers do, synchronously: validates a CRD on create,
 * marks it `NamesAccepted` and `Established` at once, serves its resource while it exists, and on
 * deletion stops serving it (open watches end) and removes its objects.
 */
export class CrdController {
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly store: ObjectStore,
    private readonly hub: WatchHub,
  ) {
    store.onEvent((e) => this.onEvent(e));
  }

  /** Validates a CRD about to be created and fills in its status; throws 422 Invalid. */
  admitCreate(r: ServedResource, crd: UnstructuredObject): UnstructuredObject {
    const problems = [...crdProblems(crd).map((p) => ({ ...p, reason: 'FieldValueInvalid' })), ...crdRuleProblems(crd['spec'] as Parameters<typeof crdRuleProblems>[0])];
    if (problems.length > 0) throw invalid(r.kind, r.group, crd.metadata?.name ?? '', problems);
    const nr = resourceFromCrd(crd);
    const existing = this.registry.byGroupPlural(nr.group, nr.plural);
    if (existing !== undefined && !existing.custom) {
      throw invalid(r.kind, r.group, crd.metadata?.name ?? '', [{ reason: 'FieldValueInvalid', field: 'spec.names.plural', message: `Invalid value: "${nr.plural}": is already in use` }]);
    }
    const spec = crd['spec'] as { names?: object; versions?: readonly { name?: string; storage?: boolean }[] };
    const t = now();
    const cond = (type: string, reason: string, message: string) => ({ type, status: 'True', lastTransitionTime: t, reason, message });
    return {
      ...crd,
      status: {
        conditions: [cond('NamesAccepted', 'NoConflicts', 'no conflicts found'), cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted')],
        acceptedNames: spec.names ?? {},
        storedVersions: (spec.versions ?? []).filter((v) => v.storage === true).map((v) => v.name ?? ''),
      },
    };
  }

  /**
   * Checks a CRD about to be updated: its validation rules (compilation, cost). The object is
   * stored as sent (the 1.20 schema of CRDs does not know `x-kubernetes-validations`, so it is
   * not copied through the built-in kinds' known-field filter).
   */
  admitUpdate(r: ServedResource, crd: UnstructuredObject): UnstructuredObject {
    const problems = crdRuleProblems(crd['spec'] as Parameters<typeof crdRuleProblems>[0]);
    if (problems.length > 0) throw invalid(r.kind, r.group, crd.metadata?.name ?? '', problems);
    return crd;
  }

  private onEvent(e: StoreEvent): void {
    if (e.resourceId !== CRD_RESOURCE_ID) return;
    const crd = e.entry.object;
    if (crdProblems(crd).length > 0) return;
    const served = resourceFromCrd(crd);
    if (e.type === 'DELETED') {
      const id = resourceId(served);
      for (const c of this.hub.connections(id)) c.end();
      for (const entry of this.store.snapshot(id)) this.store.remove(id, entry.key);
      this.registry.remove(served.group, served.plural);
    } else if (crd.metadata?.deletionTimestamp === undefined) {
      this.registry.add(served);
    }
  }
}
