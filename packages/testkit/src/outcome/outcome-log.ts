import type { Subscription } from 'rxjs';
import type { Controller, ReconcileOutcome } from 'rxkube';

/** A reconcile outcome as a started controller reported it, with the virtual time it arrived. */
export interface RecordedOutcome {
  /** The controller's name. */
  readonly controller: string;
  /** Virtual time (ms) the outcome was reported. */
  readonly at: number;
  readonly outcome: ReconcileOutcome;
}

/** A controller started by `virtualTime`'s `start`: its outcomes so far, and how its run ended. */
export interface StartedController {
  readonly controller: Controller;
  /** Every reconcile outcome so far, oldest first. */
  readonly outcomes: readonly ReconcileOutcome[];
  /** The error `run()` ended with (e.g. a cache-sync timeout), if it did. */
  readonly error: unknown;
  /** Whether `run()` has ended (completed or errored). */
  readonly ended: boolean;
  /** Stops the controller (unsubscribes its `run()`). */
  stop(): void;
}

/** `namespace/name kind [requeue delay]`: an outcome as the failure reports spell it. */
export function describeOutcome(o: ReconcileOutcome): string {
  const key = o.request.namespace === undefined || o.request.namespace === '' ? o.request.name : `${o.request.namespace}/${o.request.name}`;
  return `${key} ${o.kind}${o.requeueAfter === undefined ? '' : ` ${o.requeueAfter}`}`;
}

/** The outcomes of every controller a `virtualTime` test started, in the order they arrived. */
export class OutcomeLog {
  private readonly recorded: RecordedOutcome[] = [];
  private readonly started: { readonly handle: StartedController; readonly subscription: Subscription }[] = [];

  constructor(private readonly now: () => number) {}

  /** Everything recorded so far. */
  get all(): readonly RecordedOutcome[] {
    return this.recorded;
  }

  /** Subscribes `controller.run()` and records its outcomes. */
  start(controller: Controller): StartedController {
    const outcomes: ReconcileOutcome[] = [];
    let error: unknown;
    let ended = false;
    const subscription = controller.run().subscribe({
      next: (outcome) => {
        outcomes.push(outcome);
        this.recorded.push({ controller: controller.name, at: this.now(), outcome });
      },
      error: (e: unknown) => {
        error = e;
        ended = true;
      },
      complete: () => {
        ended = true;
      },
    });
    const handle: StartedController = {
      controller,
      outcomes,
      get error() {
        return error;
      },
      get ended() {
        return ended;
      },
      stop: () => subscription.unsubscribe(),
    };
    this.started.push({ handle, subscription });
    return handle;
  }

  /** The started controllers whose `run()` ended with an error. */
  failed(): readonly StartedController[] {
    return this.started.map((s) => s.handle).filter((h) => h.error !== undefined);
  }

  /** How many controllers were started. */
  get controllers(): number {
    return this.started.length;
  }

  /** Stops every started controller. */
  stopAll(): void {
    for (const s of this.started) s.subscription.unsubscribe();
  }
}
