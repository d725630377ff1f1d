/**
 * What makes one kind of resource special in the embedded server, as kube-apiserver's per-resource
 * `rest.RESTCreateStrategy` / `RESTUpdateStrategy` / `RESTDeleteStrategy` objects do: its defaults
 * and validation, the status a create starts with, how a delete goes, its subresources and its
 * table columns. Every served kind has one (the default strategy when nothing is special); they
 * are looked up in strategies/registry.ts, never by comparing resource names on the request path.
 */
import type { IncomingMessage } from 'node:http';
import type { UnstructuredObject } from 'rxkube';
import type { Authorizer, UserInfo } from '../access-review.js';
import type { FieldCause } from '../status-error.js';
import type { TypedField } from '../field-types.js';
import type { StoredEntry } from '../object-store.js';
import type { ServedResource } from '../resource-registry.js';
import type { Column } from '../table-cells.js';

/** A plain JSON object (objects are changed in place by defaulting; callers pass copies). */
export type Obj = Record<string, unknown>;

/** `DeleteOptions` fields that shape how an object is deleted. */
export interface DeletionRequest {
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
  /** Legacy form of `propagationPolicy: Orphan`. */
  readonly orphanDependents?: boolean;
}

/** What a delete does to the stored object. */
export type DeletionPlan =
  /** Removed now (one DELETED event). */
  | { readonly type: 'remove' }
  /** Kept with this new state (deletionTimestamp, finalizers, phase). */
  | { readonly type: 'mark'; readonly object: UnstructuredObject }
  /** Already being deleted; nothing changes. */
  | { readonly type: 'unchanged' };

/** Where a resource keeps what its `/scale` subresource shows (JSON paths as in a CRD's `subresources.scale`). */
export interface ScaleSpec {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** Path of the selector: a string (CRDs) or a `LabelSelector` object (apps). */
  readonly labelSelectorPath?: string;
}

/** Allocates cluster IPs and node ports (services). */
export interface IpAllocator {
  clusterIP(): string;
  nodePort(): number;
}

/** Collects validation causes (kube-apiserver's `field.ErrorList`). */
export interface CauseList {
  readonly list: FieldCause[];
}

/** The object service's reads and writes a strategy's handlers use. */
export interface ObjectWrites {
  /** Checks body shape, kind, apiVersion and typed fields as kube-apiserver's decoder does. */
  decode(r: ServedResource, version: string, body: unknown): UnstructuredObject;
  /** The stored object or 404. */
  get(r: ServedResource, namespace: string | undefined, name: string): StoredEntry;
  /** Writes an already-merged new state (`status` only, or `binding`: without update admission). */
  writeUpdate(r: ServedResource, current: StoredEntry, obj: UnstructuredObject, subresource?: 'status' | 'binding'): StoredEntry;
}

/** Finds the strategy of a resource (see strategies/registry.ts). */
export interface StrategyLookup {
  for(r: Pick<ServedResource, 'group' | 'plural' | 'kind' | 'custom'>): ResourceStrategy;
}

/** One request to a subresource (or a whole resource) a strategy serves itself. */
export interface StrategyRequest {
  readonly req: IncomingMessage;
  readonly method: string;
  readonly r: ServedResource;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly service: ObjectWrites;
  readonly user: UserInfo;
  /** The server's authorizer (access reviews ask it). */
  readonly authorizer: Authorizer;
  /** Reads the request body (bounded by the server's body limit). */
  readBody(): Promise<Buffer>;
}

/** What such a handler answers: status code and JSON body. */
export interface StrategyAnswer {
  readonly code: number;
  readonly body: string | object;
}

/** Serves a subresource (`/finalize`, `/binding`) or a whole resource (access reviews). */
export type StrategyHandler = (request: StrategyRequest) => Promise<StrategyAnswer>;

/** The behaviour of one resource kind; see the file comment. Every member is required: the default strategy supplies the ordinary behaviour. */
export interface ResourceStrategy {
  /** Typed top-level fields besides `metadata` whose JSON type the decoder checks (a ConfigMap's `data`). */
  readonly typedFields: readonly TypedField[];
  /**
   * On create, after the server set the metadata: what the object starts with that the client
   * cannot choose (a pod's `Pending` phase, a namespace's finalizer). `keepStatus` is set for
   * seeded objects, whose status is kept as given.
   */
  prepareForCreate(o: Obj, keepStatus: boolean): void;
  /**
   * Before defaulting, in strict mode: checks that must pass before anything is allocated, and
   * what an update keeps from the stored object (`old`; undefined on create). May throw a StatusError.
   */
  beforeDefaults(r: ServedResource, o: Obj, old: Obj | undefined): void;
  /** Defaulting (strict mode), in place; `create` adds what is set once (status, allocations). */
  defaults(o: Obj, create: boolean, alloc: IpAllocator): void;
  /** Validation (strict mode): adds causes for what is invalid; `old` is the stored object on update. */
  validate(c: CauseList, o: Obj, old: Obj | undefined): void;
  /** The grace period a delete of `current` gets (0: at once, unless finalizers hold it). */
  gracePeriodSeconds(current: UnstructuredObject, asked: number | undefined): number;
  /** A delete planned by the kind itself (namespaces), or undefined for the ordinary plan. */
  planDeletion(current: UnstructuredObject): DeletionPlan | undefined;
  /** True while something besides `metadata.finalizers` keeps an object being deleted (a namespace's `spec.finalizers`). */
  holdsDeletion(o: UnstructuredObject): boolean;
  /** What a DELETE that removed the object answers: the object itself (pods, namespaces, custom resources) or a Success Status. */
  readonly deleteAnswer: 'object' | 'status';
  /** Subresources the kind serves itself, by name (besides `status` and `scale`). */
  readonly subresources: Readonly<Record<string, StrategyHandler>>;
  /** Serves every non-watch request of the resource itself (access reviews), when set. */
  readonly endpoint: StrategyHandler | undefined;
  /** The built-in `/scale` subresource (workloads), or undefined. */
  readonly scale: ScaleSpec | undefined;
  /** Table columns (`kubectl get`) when the kind has its own, else undefined (the table view's). */
  readonly columns: readonly Column[] | undefined;
  /** Admission on create in place of built-in defaulting and validation (CRDs, custom resources); undefined for built-ins. */
  readonly admitCreate: ((r: ServedResource, o: UnstructuredObject) => UnstructuredObject) | undefined;
  /** Admission on update in place of built-in defaulting and validation (CRDs, custom resources; `old`: the stored object); undefined for built-ins. */
  readonly admitUpdate: ((r: ServedResource, o: UnstructuredObject, old?: UnstructuredObject) => UnstructuredObject) | undefined;
}
