/**
 * Which backoff a delay came from: `connection` (the server did not answer), `serverError` (429
 * or 5xx), `general` (everything else). With `sharedBackoff` every delay is `general`.
 */
export type BackoffCause = 'connection' | 'serverError' | 'general';

/** Which request the reflector makes after a backoff. */
export type ReflectorNextStep = 'relist' | 'rewatch' | 'streamingList';

/**
 * What the reflector is doing, for logs and charts (the `status` option of `listWatch`).
 *
 * - `connecting`: a new list-and-watch cycle starts (at subscribe and after every relist backoff).
 * - `listing`: a list request (first page) is sent.
 * - `listed`: a list finished; `replace` has been emitted.
 * - `streaming`: a streaming-list watch (`sendInitialEvents=true`) is requested.
 * - `watching`: a watch request is sent.
 * - `backingOff`: waiting `delayMs` before `next`; `attempt` counts delays of that backoff since
 *   its last reset; `backoff` names the backoff.
 * - `error`: a recoverable error, and what the reflector does about it.
 */
export type ReflectorStatus =
  | { readonly type: 'connecting' }
  | { readonly type: 'listing'; readonly resourceVersion: string; readonly limit: number }
  | {
      readonly type: 'listed';
      readonly resourceVersion: string;
      readonly itemCount: number;
      readonly paginated: boolean;
    }
  | { readonly type: 'streaming'; readonly resourceVersion: string; readonly timeoutSeconds: number }
  | { readonly type: 'watching'; readonly resourceVersion: string; readonly timeoutSeconds: number }
  | {
      readonly type: 'backingOff';
      readonly attempt: number;
      readonly delayMs: number;
      readonly next: ReflectorNextStep;
      /** Which backoff the delay came from (always set by the reflector). */
      readonly backoff?: BackoffCause;
    }
  | {
      readonly type: 'error';
      readonly error: unknown;
      /** What the reflector does next: relist, rewatch, retry the streaming list, or fall back to list+watch. */
      readonly action: ReflectorNextStep | 'fallbackToList' | 'skipEvent';
    };
