import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

let loaded: typeof PromClient | undefined;

/**
 * `prom-client` (a peer dependency), loaded on first use rather than on `import('rxkube')`: a
 * process pays for it once it builds a metrics registry or a collector, not for importing the
 * library (about a quarter of rxkube's own import time). prom-client is CommonJS, so `require`
 * loads it synchronously and the callers stay synchronous.
 */
export function promClient(): typeof PromClient {
  loaded ??= createRequire(import.meta.url)('prom-client') as typeof PromClient;
  return loaded;
}
