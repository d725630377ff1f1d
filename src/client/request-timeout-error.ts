import type { ErrorLayer } from '../api/rxkube-error.js';
import { NetworkError } from './network-error.js';

/** Which wait ran out: opening the TCP connection, the TLS handshake, or the server's answer. */
export type RequestTimeoutPhase = 'connect' | 'tlsHandshake' | 'response';

const WHAT: Readonly<Record<RequestTimeoutPhase, string>> = {
  connect: 'connecting to',
  tlsHandshake: 'TLS handshake with',
  response: 'waiting for the answer of',
};

/**
 * A request ran out of time: the TCP connection was not open within the connect timeout, the TLS
 * handshake did not finish within its timeout, or the server did not answer (or finish its
 * answer) within the request timeout (see `KubeConnectionOptions`). The request was aborted. A
 * {@link NetworkError} (it is retried and backed off as one); the message names the server, the
 * method, the path and the timeout.
 */
export class RequestTimeoutError extends NetworkError {
  static override readonly code: string = 'CLIENT_REQUEST_TIMEOUT';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name: string = 'RequestTimeoutError';

  constructor(
    /** `host:port` of the server. */
    readonly server: string,
    method: string,
    path: string,
    /** The timeout that ran out, in ms. */
    readonly timeoutMs: number,
    /** Which wait ran out. */
    readonly phase: RequestTimeoutPhase,
  ) {
    const cause = Object.assign(new Error(`${WHAT[phase]} ${server} timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
    super(method, path, cause);
  }
}
