import { RxkubeError, type ErrorLayer } from 'rxkube';

/** What a refused scaffolding step ran into (the `code` of a {@link ScaffoldError}). */
export type ScaffoldErrorCode =
  /** A flag or answer that cannot be used (group, kind, versions, project name); the message names it. */
  | 'SCAFFOLD_INPUT_INVALID'
  /** The new project's folder exists and is not empty. */
  | 'SCAFFOLD_TARGET_NOT_EMPTY'
  /** `create-rxkube api` ran outside a project (no src/manager.ts). */
  | 'SCAFFOLD_NOT_A_PROJECT'
  /** A file the kind would write exists (the kind was added before); nothing is overwritten. */
  | 'SCAFFOLD_KIND_EXISTS'
  /** A template names a placeholder the scaffolder has no value for. */
  | 'SCAFFOLD_TEMPLATE_INVALID'
  /** src/manager.ts lost a `// create-rxkube:…` marker line the `api` command inserts above. */
  | 'SCAFFOLD_MARKER_MISSING';

/** A refused scaffolding step; the instance's `code` says which (see {@link ScaffoldErrorCode}). */
export class ScaffoldError extends RxkubeError {
  static override readonly code: string = 'SCAFFOLD_INPUT_INVALID';
  static override readonly layer: ErrorLayer = 'scaffold';
  override readonly name = 'ScaffoldError';

  constructor(
    override readonly code: ScaffoldErrorCode,
    message: string,
  ) {
    super(message);
  }
}
