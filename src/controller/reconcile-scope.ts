import { AsyncLocalStorage } from 'node:async_hooks';

/** Which reconcile some code runs for: set around every reconcile call (and its async continuations). */
export interface ReconcileScope {
  readonly controller: string;
  /** The request's queue key (`namespace/name`). */
  readonly key: string;
  readonly reconcileId: string;
}

const storage = new AsyncLocalStorage<ReconcileScope>();

/**
 * Runs `fn` in `scope`: everything it starts — timers, promise continuations, I/O callbacks —
 * carries the scope, so an error that escapes from there (an exception thrown in a timer, an
 * unhandled rejection) can be traced back to its controller and key (the manager does).
 */
export function inReconcileScope<R>(scope: ReconcileScope, fn: () => R): R {
  return storage.run(scope, fn);
}

/** The reconcile the current code runs for, if any (also in a timer or continuation it started). */
export function currentReconcile(): ReconcileScope | undefined {
  return storage.getStore();
}
