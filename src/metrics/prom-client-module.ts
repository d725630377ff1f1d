import type * as PromClient from 'prom-client';
import { lazyModule } from '../api/lazy-module.js';

/**
 * `prom-client` (a peer dependency), loaded on first use rather than on `import('rxkube')`: a
 * process pays for it once it builds a metrics registry or a collector, not for importing the
 * library (about a quarter of rxkube's own import time).
 */
export const promClient = lazyModule<typeof PromClient>('prom-client');
