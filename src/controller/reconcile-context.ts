import type { Cached, KubeObject, UnstructuredObject } from '../api/kube-object.js';
import type { Store } from '../cache/store.js';
import type { Recipe } from '../client/draft-patch.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ObjectClient } from '../client/object-client.js';
import type { ResourceType } from '../api/resource.js';
import type { EditOptions } from '../client/update-with-recipe.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Logger } from '../logging/logger.js';
import type { Request } from '../workqueue/request.js';
import type { ControllerSource } from './controller-source.js';
import type { ControllerExpectations } from './expectations.js';

/**
 * What a controller's reconcile function gets besides the request.
 *
 * Read-your-writes (on by default, the controller's `readYourWrites` option,
 * docs/read-your-writes.md): the writes made through {@link client}, {@link objects}, {@link edit}
 * and {@link editStatus} are recorded; a key's next reconcile starts only once the controller's
 * caches show its own object's pending write and the writes of the key's earlier reconciles, and
 * {@link object}, {@link store} and {@link storeOf} never return a copy older than the
 * controller's own write of it (nor one it deleted).
 */
export interface ReconcileContext<T extends KubeObject = KubeObject> {
  /** The request being reconciled. */
  readonly request: Request;
  /**
   * Aborts when the reconcile times out (`ReconcileTimeoutError`), is superseded, or the
   * controller stops (after its grace period; `ReconcileAbortedError`), and at once when
   * leadership is lost (a `LeadershipLostError`: fencing). Every call made through {@link client},
   * {@link objects}, {@link edit} and {@link editStatus} carries it without being passed it.
   */
  readonly signal: AbortSignal;
  /** A logger carrying `controller`, `object` and `reconcileID` (controller-runtime's fields). */
  readonly logger: Logger;
  /** A fresh id per reconcile call. */
  readonly reconcileId: string;
  /**
   * The cached `for` object named by the request when the reconcile started (undefined: gone, or
   * no `for`); as cached, its `metadata` has `name`, `uid` and `resourceVersion`.
   */
  readonly object: Cached<T> | undefined;
  /** The lister (read-only cache) of the `for` type; empty store when the controller has no `for`. */
  readonly store: Store<Cached<T>>;
  /** The lister of any source the controller watches (or any other source). */
  storeOf<U extends KubeObject>(source: ControllerSource<U>): Store<Cached<U>>;
  /**
   * Records Events about objects (a no-op recorder when the controller has none), fenced like
   * {@link client}: every Event carries the controller's fence (`EventOptions.fence`, see
   * `fencedRecorder`), so once leadership is lost none recorded here is sent any more — those
   * recorded after are refused, those still queued dropped (counted in
   * `rxkube_events_fenced_total`, logged once with the count).
   */
  readonly recorder: EventRecorder;
  /**
   * Expectations of this controller's own writes, per owner key (`namespace/name`), as
   * kube-controller-manager's `ControllerExpectations`: call `expectCreations(key, n)` /
   * `expectDeletions(key, keys)` before creating or deleting owned objects, and act on the owner
   * again only once `satisfied(key)` (or return `{ requeueAfter: ctx.expectations.expiresIn(key) }`).
   * The events of `owns` sources lower them (an add is a creation; a delete, or the start of a
   * deletion, a deletion) before they become requests. Records expire after `expectationsTtlMs`
   * on the controller's scheduler.
   */
  readonly expectations: ControllerExpectations;
  /**
   * The client given to the controller, if any, as a fenced view (`fencedClient`): its requests
   * carry {@link signal}, and once leadership is lost its writes are refused with a
   * `FencedWriteError` before anything is sent.
   */
  readonly client: KubeClient | undefined;
  /**
   * The field manager of this controller's writes: its `fieldManager` option, else its name.
   * Clients from {@link objects} use it for every write (and `apply` needs one).
   */
  readonly fieldManager: string;
  /**
   * A typed client for writes: the `for` type in the request's namespace, or `type` in `namespace`
   * (typed by the resource type: `ctx.objects(resources.pods, ns)` is an `ObjectClient<K8s.Pod>`);
   * its writes carry {@link fieldManager}, every call carries {@link signal} (combined with a
   * signal passed in the call's options), and writes after lost leadership are refused with a
   * `FencedWriteError` (see {@link client}).
   * @throws ControllerError when the controller was built without a `client`.
   */
  objects(): ObjectClient<T>;
  objects<U extends KubeObject = UnstructuredObject>(type: ResourceType<U>, namespace?: string): ObjectClient<U>;
  /**
   * Edits the reconciled object by changing a draft of it (`ObjectClient.edit` on `objects()`):
   * `recipe` runs on an immer draft of the newest copy this reconcile has (`object`, or what an
   * earlier `edit`/`editStatus` of this reconcile returned), only the change is sent (a JSON patch
   * guarded by a `test` of `metadata.resourceVersion`), nothing when there is none. On a conflict
   * the object is re-read (from `store` once it has caught up, else from the server) and the recipe
   * runs again, up to 5 times. **The recipe must be pure**: it may run more than once and decides
   * only from the draft and from values fixed before the call. Resolves with the server's object.
   * `signal` and `store` default to the reconcile's. The draft is of a cached or server copy, so
   * its `metadata` (with name, uid, resourceVersion) is there.
   * @throws ControllerError when there is no cached object (gone, or no `for`) or no client.
   *
   * @example
   * ```ts
   * await ctx.edit((draft) => { (draft.metadata.labels ??= {})['example.com/seen'] = 'yes'; });
   * await ctx.editStatus((draft) => { draft.status = { phase: 'Ready', observedGeneration: draft.metadata.generation }; });
   * ```
   */
  edit(recipe: Recipe<Cached<T>>, options?: EditOptions<T>): Promise<T>;
  /** {@link edit} through the `status` subresource; the recipe may change only `status`. */
  editStatus(recipe: Recipe<Cached<T>>, options?: EditOptions<T>): Promise<T>;
}
