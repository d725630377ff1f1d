import type { ReflectorStatus } from '../reflector/reflector-status.js';
import { InformerError } from './informer-errors.js';

type ErrorAction = Extract<ReflectorStatus, { type: 'error' }>['action'];

const NEXT: Readonly<Record<ErrorAction, string>> = {
  relist: 'retrying with a new list',
  rewatch: 'retrying the watch',
  streamingList: 'retrying the streaming list',
  fallbackToList: 'falling back to list and watch',
  skipEvent: 'skipped the event',
};

/**
 * A list or watch of an informer failed, and its reflector recovers by itself (`action`: relist,
 * rewatch, …, after a backoff). Reported on the informer's `errors$` so that a consumer sees why
 * an informer does not sync (an unreachable server, a kind the server does not serve, 403
 * Forbidden, …); `cause` is the client's error (`NetworkError`, `ApiError`,
 * `UnknownResourceError`, …).
 */
export class ListWatchError extends InformerError {
  static override readonly code: string = 'INFORMER_LIST_WATCH_FAILED';
  override readonly name = 'ListWatchError';

  constructor(
    readonly informer: string,
    readonly action: ErrorAction,
    override readonly cause: unknown,
  ) {
    super(`informer ${informer}: ${describeCause(cause)} (${NEXT[action]})`);
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  return cause.message || cause.name;
}
