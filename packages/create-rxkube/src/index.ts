/**
 * `create-rxkube`: scaffolds an rxkube operator project (`npm create rxkube my-operator`) and adds
 * custom resource kinds to it (`npx create-rxkube api --kind Gadget`). The CLI is `main`; the
 * steps are usable on their own.
 *
 * @module create-rxkube
 */
export { main, type CliIo } from './cli.js';
export { addKind, createProject, insertAboveMarker, MARKERS, type AddKindOptions, type CreateProjectOptions, type KindOptions } from './scaffold.js';
export { checkGroup, checkProjectName, kindNames, parseVersions, pluralOf, type KindNames } from './names.js';
export { outputPath, renderTemplates, substitute, TEMPLATES_DIR, type Placeholders, type RenderedFile } from './render.js';
export { ScaffoldError, type ScaffoldErrorCode } from './scaffold-error.js';
export { PROJECT_DEPENDENCIES, PROJECT_DEV_DEPENDENCIES, RXKUBE_VERSION } from './versions.js';
