import { type ErrorLayer, RxkubeError } from '../api/rxkube-error.js';

/**
 * This process stopped leading. Besides an error, it is the *fencing reason*: a stop signal
 * aborted with it (`controller.abort(new LeadershipLostError())`, as the manager does for its
 * leader-election runnables) means "stop now, without grace": a controller then aborts every
 * running reconcile's `ctx.signal` at once with it, dequeues nothing more, and refuses the writes
 * its reconciles still try through `ctx` with a `FencedWriteError` (see `docs/leader-election.md`).
 * The manager's `LeaderElectionLostError` is one.
 */
export class LeadershipLostError extends RxkubeError {
  static override readonly code: string = 'LEADER_ELECTION_LEADERSHIP_LOST';
  static override readonly layer: ErrorLayer = 'leader-election';
  override readonly name: string = 'LeadershipLostError';
  constructor(message = 'leadership lost', options?: ErrorOptions) {
    super(message, options);
  }
}

/** Whether `reason` (an abort reason, an error) says leadership was lost: the fencing reason. */
export function isLeadershipLost(reason: unknown): reason is LeadershipLostError {
  return reason instanceof LeadershipLostError;
}
