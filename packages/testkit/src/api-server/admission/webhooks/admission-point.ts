/**
 * The points of the write path where admission webhooks run (the small hook ObjectService calls):
 * `mutate` before the strategy prepares and validates the object, `validate` after.
 */
import type { UnstructuredObject } from 'rxkube';
import type { ServedResource } from '../../served-resource.js';

/** Where in a write admission runs. */
export interface AdmissionPoint {
  readonly r: ServedResource;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  /** `status` for `/status` writes; undefined for the main resource. */
  readonly subresource?: string;
  /** The stored object (UPDATE, DELETE). */
  readonly old?: UnstructuredObject;
}

/** What the server sets on create (a generated name, the uid, the creation time). */
export interface SystemFields {
  readonly name: string | undefined;
  readonly uid: string;
  readonly creationTimestamp: string;
}

/** Admission webhooks as seen from the (synchronous) write path. */
export interface WebhookAdmissionPoint {
  /** The server-set fields of a create: `fresh`, or those of an earlier run of the same write. */
  systemFields(point: AdmissionPoint, fresh: SystemFields): SystemFields;
  /** The object after mutating webhooks (the same object when none applies). */
  mutate(point: AdmissionPoint, obj: UnstructuredObject | undefined): UnstructuredObject | undefined;
  /** Runs (or checks the run of) the validating webhooks on the final object. */
  validate(point: AdmissionPoint, obj: UnstructuredObject | undefined): void;
}
