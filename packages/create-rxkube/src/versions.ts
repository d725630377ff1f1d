/**
 * The versions a generated project depends on. rxkube's packages are released together, at this
 * package's version; the tools are the versions rxkube itself is built and tested with (a unit
 * test checks them against the repository's package.json).
 */
export const RXKUBE_VERSION = '0.1.0';

/** Runtime dependencies of a generated project (rxjs and prom-client are rxkube's peers). */
export const PROJECT_DEPENDENCIES: Readonly<Record<string, string>> = {
  rxjs: '^7.8.1',
  'prom-client': '^15.1.0',
};

/** Development dependencies besides rxkube's own tools (@rxkube/testkit, @rxkube/codegen). */
export const PROJECT_DEV_DEPENDENCIES: Readonly<Record<string, string>> = {
  '@types/node': '^24.19.2',
  'js-yaml': '^5.5.0',
  tsx: '^4.23.15',
  typescript: '~6.0.3',
  vitest: '^5.1.0',
};
