import { ConfigError } from '../api/rxkube-error.js';
import type { ErrorLayer } from '../api/rxkube-error.js';

/**
 * `fetchClient` / `FetchConnection` options that cannot work: a `server` that is not a URL (or a
 * relative one where there is no page to resolve it against), or no `fetch` in this runtime.
 * `option` names the option.
 */
export class FetchConfigError extends ConfigError {
  static override readonly code: string = 'CLIENT_FETCH_CONFIG_INVALID';
  static override readonly layer: ErrorLayer = 'client';
  override readonly name = 'FetchConfigError';
}
