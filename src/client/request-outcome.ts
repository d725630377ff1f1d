/** One request to the API server as its `KubeConnection` reports it to request observers. */
export interface RequestOutcome {
  /** HTTP method (`GET`, `POST`, …): client-go's `verb` label. */
  readonly method: string;
  /** `host:port` of the server. */
  readonly host: string;
  /** HTTP status of the answer; `undefined` when none came (refused, reset, TLS failure, …). */
  readonly code: number | undefined;
  /** From sending to the response head (for a watch: until the stream opened), in ms. */
  readonly durationMs: number;
}

/** Receives every {@link RequestOutcome}; must not throw (errors are ignored). */
export type RequestObserver = (outcome: RequestOutcome) => void;
