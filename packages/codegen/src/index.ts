/**
 * `@rxkube/codegen`: TypeScript types and resource descriptors from CustomResourceDefinitions,
 * as a library and as the `rxkube generate-types` command. A devDependency: generated files are
 * committed with the project and need only `rxkube` at run time.
 *
 * @module @rxkube/codegen
 */
export { generateCrdTypes } from './crd-types.js';
export type { GenerateCrdTypesOptions } from './crd-types.js';
export { crdsOfManifest } from './cli.js';
