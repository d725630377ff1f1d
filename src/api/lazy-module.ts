import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A dependency loaded on first use rather than on `import('rxkube')`: `lazyModule<T>(name)()`
 * `require`s it the first time it is called and returns the same module after. `require` loads
 * CommonJS and (on Node.js ≥ 22.12) ES modules synchronously, so callers stay synchronous.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= load(name) as T;
    return loaded;
  };
}
