import type { KubeObject } from '../api/kube-object.js';
import type { DeletedFinalStateUnknown } from './delta.js';
import type { InformerEvent } from './informer-event.js';

/**
 * Callback-style handlers (docs/semantics.md CT-2). Every callback is optional; a missing one ignores its
 * events. `add` receives `isInInitialList` as a second argument, which callers that do not care
 * can leave out (the "detailed" and plain client-go variants in one type).
 */
export interface EventHandlerFuncs<T extends KubeObject = KubeObject> {
  readonly add?: (object: T, isInInitialList: boolean) => void;
  readonly update?: (old: T, object: T) => void;
  readonly delete?: (object: T | DeletedFinalStateUnknown<T>) => void;
}

/** Calls the handler matching `event` (CT-2), if present. */
export function dispatchEvent<T extends KubeObject>(handlers: EventHandlerFuncs<T>, event: InformerEvent<T>): void {
  switch (event.type) {
    case 'add':
      handlers.add?.(event.object, event.isInInitialList);
      break;
    case 'update':
      handlers.update?.(event.old, event.object);
      break;
    case 'delete':
      handlers.delete?.(event.object);
      break;
  }
}
