import type { KubeObject } from '../api/kube-object.js';
import type { InformerEvent } from '../cache/informer-event.js';
import type { ObjectKey } from '../cache/keys.js';
import { DeletedFinalStateUnknown } from '../cache/delta.js';

type AddEvent<T extends KubeObject> = Extract<InformerEvent<T>, { type: 'add' }>;
type UpdateEvent<T extends KubeObject> = Extract<InformerEvent<T>, { type: 'update' }>;
type DeleteEvent<T extends KubeObject> = Extract<InformerEvent<T>, { type: 'delete' }>;

/** What is waiting for one key: at most a delete, then at most one add or update. */
interface Slot<T extends KubeObject> {
  del: DeleteEvent<T> | undefined;
  last: AddEvent<T> | UpdateEvent<T> | undefined;
}

const uidOf = (o: KubeObject | DeletedFinalStateUnknown<KubeObject>): string | undefined =>
  (o instanceof DeletedFinalStateUnknown ? o.object : o)?.metadata?.uid;

/** Same object identity, or unknown (no UID on one side): only a known difference counts. */
const sameUid = (a: KubeObject | DeletedFinalStateUnknown<KubeObject>, b: KubeObject | DeletedFinalStateUnknown<KubeObject>): boolean => {
  const ua = uidOf(a);
  const ub = uidOf(b);
  return ua === undefined || ub === undefined || ua === ub;
};

const isInitialAdd = <T extends KubeObject>(e: InformerEvent<T> | undefined): boolean =>
  e !== undefined && e.type === 'add' && e.isInInitialList;

/**
 * A subscriber's pending notifications, coalesced per key so that its size is bounded by the
 * number of keys, not the number of events (at most two events per key: a delete and the latest
 * add/update). Keys leave in the order they first entered.
 *
 * Coalescing rules (what the subscriber would conclude from the full sequence):
 * - `add(a)` then `update(a→b)` → `add(b)` (keeps `isInInitialList`);
 * - `update(o→a)` then `update(a→b)` → `update(o→b)`, a resync only if both were resyncs;
 * - `update` then `delete` → the delete (deletes of objects the subscriber knows are never lost);
 *   if a delete was already pending it is kept (it names the version the subscriber saw); if the
 *   pending update changed the object's UID (deleted and recreated under the same name while the
 *   watch was down), the delete names the update's `old` — the object the subscriber knew — and
 *   the recreated object, which the subscriber never saw, is not mentioned at all;
 * - `add` then `delete` → nothing: the subscriber never saw the object, so a delete would name an
 *   object it does not know (with a delete pending before the add, that delete stays);
 * - `delete` then `add` → both, in that order (a recreated object is a new object).
 */
export class ListenerBacklog<T extends KubeObject = KubeObject> {
  private readonly slots = new Map<ObjectKey, Slot<T>>();
  private initial = 0;
  private events = 0;

  /** Keys waiting. */
  get keys(): number {
    return this.slots.size;
  }

  /** Events waiting (≤ 2 × keys). */
  get size(): number {
    return this.events;
  }

  /** Initial-list adds waiting (SI-11 counter, without the one in flight). */
  get pendingInitial(): number {
    return this.initial;
  }

  push(key: ObjectKey, event: InformerEvent<T>): void {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = { del: undefined, last: undefined };
      this.slots.set(key, slot);
    }
    const before = this.count(slot);
    const wasInitial = isInitialAdd(slot.last);
    switch (event.type) {
      case 'add':
        slot.last = event;
        break;
      case 'update': {
        const last = slot.last;
        if (last?.type === 'add') slot.last = { type: 'add', object: event.object, isInInitialList: last.isInInitialList };
        else if (last?.type === 'update')
          slot.last = { type: 'update', old: last.old, object: event.object, resync: last.resync && event.resync };
        else slot.last = event;
        break;
      }
      case 'delete':
        // A pending add was never delivered: the add and this delete cancel out (a subscriber must
        // not get a delete of an object it never saw; found by the chaos soak, see
        // test/soak/regressions.test.ts).
        if (slot.last?.type === 'update' && !sameUid(slot.last.old, event.object)) {
          slot.del ??= { type: 'delete', object: slot.last.old };
        } else if (slot.last?.type !== 'add') {
          slot.del ??= event;
        }
        slot.last = undefined;
        break;
    }
    this.events += this.count(slot) - before;
    this.initial += (isInitialAdd(slot.last) ? 1 : 0) - (wasInitial ? 1 : 0);
    if (slot.del === undefined && slot.last === undefined) this.slots.delete(key);
  }

  /** Removes and returns the next event, or `undefined` when empty. */
  shift(): InformerEvent<T> | undefined {
    const first = this.slots.entries().next();
    if (first.done === true) return undefined;
    const [key, slot] = first.value;
    let out: InformerEvent<T> | undefined;
    if (slot.del !== undefined) {
      out = slot.del;
      slot.del = undefined;
    } else {
      out = slot.last;
      slot.last = undefined;
      if (isInitialAdd(out)) this.initial--;
    }
    if (slot.last === undefined && slot.del === undefined) this.slots.delete(key);
    this.events--;
    return out;
  }

  clear(): void {
    this.slots.clear();
    this.initial = 0;
    this.events = 0;
  }

  private count(slot: Slot<T>): number {
    return (slot.del === undefined ? 0 : 1) + (slot.last === undefined ? 0 : 1);
  }
}
