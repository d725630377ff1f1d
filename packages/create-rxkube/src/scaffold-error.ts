/**
 * The scaffolder's one error type. `create-rxkube` runs before any rxkube package is installed,
 * so it does not import `RxkubeError`; it follows the same shape: a stable `code`, and a message
 * that names what failed and where (the flag, the file, the placeholder).
 */
export type ScaffoldErrorCode = 'INVALID_INPUT' | 'TARGET_NOT_EMPTY' | 'NOT_A_PROJECT' | 'KIND_EXISTS' | 'TEMPLATE' | 'MARKER_MISSING';

/** A refused scaffolding step; `code` says which kind of problem (see {@link ScaffoldErrorCode}). */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
  /** Which step failed, for the layer column of `docs/errors.md`. */
  readonly layer = 'create-rxkube';
  constructor(
    readonly code: ScaffoldErrorCode,
    message: string,
  ) {
    super(message);
  }
}
