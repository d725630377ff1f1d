import { createRequire } from 'node:module';
import type * as ClientNode from '@kubernetes/client-node';

let loaded: typeof ClientNode | undefined;

/**
 * `@kubernetes/client-node`, loaded on first use rather than on `import('rxkube')`: it is the
 * largest module graph rxkube depends on (about 0.35 s to load), and a process needs it only once
 * it loads a kubeconfig or converts client-node models. Loaded with `require` (Node.js ≥ 22.12
 * loads an ES module that way, synchronously), so the callers stay synchronous.
 */
export function clientNode(): typeof ClientNode {
  loaded ??= createRequire(import.meta.url)('@kubernetes/client-node') as typeof ClientNode;
  return loaded;
}
