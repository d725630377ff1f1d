/**
 * What admission needs to know about the request being served that the object service does not
 * carry: the user, whether it is a dry run, and where warnings go (the response's `Warning`
 * headers). Writes are synchronous, so the request handler sets it around one write; writes
 * without a request (the in-process API) see the default: the cluster admin, no warnings kept.
 */
import type { UserInfo } from '../../access-review.js';

/** The request admission runs for. */
export interface AdmissionRequestContext {
  readonly user: UserInfo;
  readonly dryRun: boolean;
  /** Adds a warning to the response (`Warning: 299 - "<text>"`). */
  warn(text: string): void;
}

const DEFAULT_CONTEXT: AdmissionRequestContext = {
  user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
  dryRun: false,
  warn: () => undefined,
};

/** Holds the context of the write being served. */
export class AdmissionRequestHolder {
  private current: AdmissionRequestContext = DEFAULT_CONTEXT;

  /** The context of the running write. */
  get context(): AdmissionRequestContext {
    return this.current;
  }

  /** Runs `fn` (a synchronous write) with `context`. */
  during<T>(context: AdmissionRequestContext, fn: () => T): T {
    const outer = this.current;
    this.current = context;
    try {
      return fn();
    } finally {
      this.current = outer;
    }
  }
}

/** A `Warning` header value as kube-apiserver writes it (RFC 7234 warn-code 299, text quoted). */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
