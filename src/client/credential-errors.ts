import { RxkubeError, type ErrorLayer } from '../api/rxkube-error.js';
import { redactSecrets } from '../logging/known-secrets.js';

/** Why an exec credential plugin gave no credential. */
export type ExecCredentialFailure = 'spawn' | 'exit' | 'timeout' | 'output' | 'closed';

/**
 * An exec credential plugin (a kubeconfig `user.exec`, e.g. `aws eks get-token`) gave no
 * credential: it could not be started, exited with an error, did not finish within its timeout
 * (it was killed), printed no valid `ExecCredential`, or the connection was closed while it ran.
 * The message names the plugin's command and user, and quotes the start of its stderr (never its
 * stdout, which carries the credential); credentials in use are masked.
 */
export class ExecCredentialError extends RxkubeError {
  static override readonly code: string = 'CLIENT_EXEC_CREDENTIAL_FAILED';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'ExecCredentialError';
  /** The start of the plugin's stderr (at most 1 000 characters, credentials masked). */
  readonly stderr: string;

  constructor(
    /** The plugin's command as the kubeconfig names it. */
    readonly command: string,
    /** The kubeconfig user the plugin runs for. */
    readonly user: string,
    /** What went wrong. */
    readonly failure: ExecCredentialFailure,
    detail: string,
    stderr = '',
    options: ErrorOptions = {},
  ) {
    const shown = redactSecrets(stderr.length > 1000 ? `${stderr.slice(0, 1000)}…` : stderr).trim();
    super(
      `exec credential plugin ${JSON.stringify(command)} (user ${JSON.stringify(user)}): ${redactSecrets(detail)}${shown === '' ? '' : `; stderr: ${shown}`}`,
      options,
    );
    this.stderr = shown;
  }
}

/**
 * A bearer token file (kubeconfig `token-file`, the in-cluster service-account token) cannot be
 * used: it cannot be read (and no earlier token is at hand), is empty, or holds characters not
 * allowed in an HTTP header. Names the file, never its content.
 */
export class TokenFileError extends RxkubeError {
  static override readonly code: string = 'CLIENT_TOKEN_FILE_INVALID';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'TokenFileError';

  constructor(
    /** The token file. */
    readonly file: string,
    detail: string,
    options: ErrorOptions = {},
  ) {
    super(`token file ${file}: ${detail}`, options);
  }
}
