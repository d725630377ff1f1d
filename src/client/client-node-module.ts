import type * as ClientNode from '@kubernetes/client-node';
import { lazyModule } from '../api/lazy-module.js';

/**
 * `@kubernetes/client-node`, loaded on first use rather than on `import('rxkube')`: it is the
 * largest module graph rxkube depends on (about 0.35 s to load), and a process needs it only once
 * it loads a kubeconfig or converts client-node models.
 */
export const clientNode = lazyModule<typeof ClientNode>('@kubernetes/client-node');
