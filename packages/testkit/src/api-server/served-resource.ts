import type { PrinterColumn, SchemaNode } from './crd-schema.js';
import type { FieldGetter } from './field-selector.js';

/** A resource the embedded server serves (its registry entry: group, versions, names, behaviour). */
export interface ServedResource {
  /** API group ('' for core). */
  readonly group: string;
  /** Versions served (the first is the preferred one). */
  readonly versions: readonly string[];
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** True when the resource has a `/status` subresource (PUT on the main resource keeps status). */
  readonly hasStatus: boolean;
  /** True when `metadata.generation` is maintained (bumps on spec changes). */
  readonly hasGeneration: boolean;
  /** True for custom resources (strategic merge patch is then refused, as kube-apiserver does). */
  readonly custom: boolean;
  /** Field selectors supported besides metadata.name / metadata.namespace. */
  readonly fields: Readonly<Record<string, FieldGetter>>;
  /** Discovery verbs, when not the full set (e.g. componentstatuses: get, list). */
  readonly verbs?: readonly string[];
  /** Custom resources: the structural schema of each version (`openAPIV3Schema`). */
  readonly schemas?: Readonly<Record<string, SchemaNode>>;
  /** Custom resources: the `additionalPrinterColumns` of each version. */
  readonly printerColumns?: Readonly<Record<string, readonly PrinterColumn[]>>;
}
