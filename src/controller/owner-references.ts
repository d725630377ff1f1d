import { splitApiVersion } from '../api/resource.js';
import type { KubeObject, OwnerReference } from '../api/kube-object.js';
import { ControllerError } from './controller-errors.js';

/**
 * The object already has a controller owner other than the one being set (controller-runtime's
 * `AlreadyOwnedError`): an object has at most one controller.
 */
export class AlreadyOwnedError extends ControllerError {
  static override readonly code: string = 'CONTROLLER_ALREADY_OWNED';
  override name = 'AlreadyOwnedError';
  constructor(
    /** `namespace/name` of the object. */
    readonly object: string,
    /** Its current controller reference. */
    readonly owner: OwnerReference,
  ) {
    super(`Object ${object} is already owned by another ${owner.kind} controller ${owner.name}`);
  }
}

/** What {@link ownerRefs.claim} decides for one candidate object (kube-controller-manager's ControllerRefManager). */
export type ClaimDecision =
  /** Controlled by the owner and still matching: keep it. */
  | 'owned'
  /** An orphan that matches: adopt it (set the controller reference). */
  | 'adopt'
  /** Controlled by the owner but no longer matching: release it (remove the reference). */
  | 'release'
  /** Someone else's, or not to be touched now (owner or object being deleted, other namespace). */
  | 'ignore';

/** Options of the `set…Reference` helpers. */
export interface OwnerReferenceOptions {
  /** `blockOwnerDeletion` of the reference (foreground deletion waits for the object); default true for controller references, unset otherwise. */
  readonly blockOwnerDeletion?: boolean;
  /** `apiVersion`/`kind` of the owner when the owner object lacks them (e.g. items of a list). */
  readonly type?: { readonly apiVersion: string; readonly kind: string };
}

function groupOf(apiVersion: string): string {
  return splitApiVersion(apiVersion).group;
}

function sameObject(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function keyOf(o: KubeObject): string {
  const m = o.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

/** The reference to `owner`, checked: it needs apiVersion, kind, name and uid. */
function referenceTo(owner: KubeObject, controller: boolean, options: OwnerReferenceOptions): OwnerReference {
  const apiVersion = owner.apiVersion ?? options.type?.apiVersion;
  const kind = owner.kind ?? options.type?.kind;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid) {
    throw new TypeError('an owner reference needs the owner\'s apiVersion, kind, metadata.name and metadata.uid (pass options.type for objects without apiVersion/kind)');
  }
  const block = options.blockOwnerDeletion ?? (controller ? true : undefined);
  return { apiVersion, kind, name, uid, ...(controller ? { controller: true } : {}), ...(block === undefined ? {} : { blockOwnerDeletion: block }) };
}

/** controller-runtime's validateOwner: no cross-namespace owners, no namespaced owner of a cluster-scoped object. */
function validateOwner(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace ?? '';
  if (ownerNs === '') return;
  const objectNs = object.metadata?.namespace ?? '';
  if (objectNs === '') throw new TypeError(`cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`);
  if (objectNs !== ownerNs) throw new TypeError(`cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objectNs}`);
}

/** `object` with `refs` as its owner references (a new object; `object` is not changed). */
function withRefs<T extends KubeObject>(object: T, refs: readonly OwnerReference[]): T {
  const metadata = { ...(object.metadata ?? {}) };
  if (refs.length === 0) delete (metadata as { ownerReferences?: unknown }).ownerReferences;
  else (metadata as { ownerReferences?: readonly OwnerReference[] }).ownerReferences = refs;
  return { ...object, metadata };
}

function upsert(refs: readonly OwnerReference[], ref: OwnerReference): OwnerReference[] {
  const i = refs.findIndex((r) => sameObject(r, ref));
  return i < 0 ? [...refs, ref] : refs.map((r, j) => (j === i ? ref : r));
}

/**
 * Owner references, as controller-runtime's `controllerutil` and kube-controller-manager's
 * ControllerRefManager handle them. Every function is pure: objects (often frozen cache copies)
 * are never changed; the setters return a new object to write (or to apply).
 *
 * @example
 * ```ts
 * const desired = ownerRefs.setControllerReference(widget, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
 * switch (ownerRefs.claim(widget, pod, selectorMatches(pod))) { case 'adopt': break; case 'release': break; } // adopt, release, …
 * ```
 */
export const ownerRefs = {
  /** The error `setControllerReference` throws for an object that has another controller (for `instanceof`). */
  AlreadyOwnedError,

  /** The controller reference of `object` (the one with `controller: true`), if any. */
  controllerOf(object: KubeObject): OwnerReference | undefined {
    return object.metadata?.ownerReferences?.find((r) => r.controller === true);
  },

  /** Whether `owner` (matched by uid) is the controller of `object`. */
  isControlledBy(object: KubeObject, owner: KubeObject): boolean {
    const ref = ownerRefs.controllerOf(object);
    return ref !== undefined && ref.uid === owner.metadata?.uid;
  },

  /** Whether `object` has any owner reference to `owner` (matched by uid). */
  hasOwnerReference(object: KubeObject, owner: KubeObject): boolean {
    const uid = owner.metadata?.uid;
    return uid !== undefined && (object.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
  },

  /**
   * `object` with `owner` as its controller (`controller: true`, `blockOwnerDeletion: true`),
   * replacing an earlier reference to the same owner (group, kind, name).
   * @throws AlreadyOwnedError when another owner is its controller.
   * @throws TypeError for a cross-namespace owner or an owner without apiVersion, kind, name or uid.
   */
  setControllerReference<T extends KubeObject>(owner: KubeObject, object: T, options: OwnerReferenceOptions = {}): T {
    validateOwner(owner, object);
    const ref = referenceTo(owner, true, options);
    const existing = ownerRefs.controllerOf(object);
    if (existing !== undefined && !sameObject(existing, ref)) throw new AlreadyOwnedError(keyOf(object), existing);
    return withRefs(object, upsert(object.metadata?.ownerReferences ?? [], ref));
  },

  /** `object` with a (non-controller) owner reference to `owner`, replacing an earlier one to the same owner. */
  setOwnerReference<T extends KubeObject>(owner: KubeObject, object: T, options: OwnerReferenceOptions = {}): T {
    validateOwner(owner, object);
    const ref = referenceTo(owner, false, options);
    const refs = object.metadata?.ownerReferences ?? [];
    const old = refs.find((r) => sameObject(r, ref));
    // Keep the controller flag of an existing reference to the same owner.
    const merged = old?.controller === true ? { ...ref, controller: true, ...(old.blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion: old.blockOwnerDeletion }) } : ref;
    return withRefs(object, upsert(refs, merged));
  },

  /** `object` without owner references to `owner` (by uid); the same object when it had none. */
  removeOwnerReference<T extends KubeObject>(owner: KubeObject, object: T): T {
    const refs = object.metadata?.ownerReferences ?? [];
    const kept = refs.filter((r) => r.uid !== owner.metadata?.uid);
    return kept.length === refs.length ? object : withRefs(object, kept);
  },

  /**
   * What an owner with a selector does with a candidate object (ControllerRefManager.ClaimObject):
   * - controlled by `owner`: `'owned'` while `matches`, else `'release'` (unless the owner is
   *   being deleted: `'ignore'`);
   * - controlled by someone else: `'ignore'`;
   * - an orphan: `'adopt'` when it matches and neither it nor the owner is being deleted and they
   *   share the namespace, else `'ignore'`.
   *
   * Adopt only after re-reading the owner from the server (uid equal, not being deleted): a
   * cached owner may have been deleted and recreated (kube's `RecheckDeletionTimestamp`).
   */
  claim(owner: KubeObject, object: KubeObject, matches: boolean): ClaimDecision {
    const ref = ownerRefs.controllerOf(object);
    const ownerDeleting = owner.metadata?.deletionTimestamp !== undefined;
    if (ref !== undefined) {
      if (ref.uid !== owner.metadata?.uid) return 'ignore';
      if (matches) return 'owned';
      return ownerDeleting ? 'ignore' : 'release';
    }
    if (ownerDeleting || !matches) return 'ignore';
    if (object.metadata?.deletionTimestamp !== undefined) return 'ignore';
    const ns = owner.metadata?.namespace ?? '';
    if (ns !== '' && ns !== (object.metadata?.namespace ?? '')) return 'ignore';
    return 'adopt';
  },
} as const;
