/**
 * The page's one door into rxkube: the browser entry (no `node:*`, no client-node). Imported by
 * path until the package exports `rxkube/browser`; then this file becomes
 * `export * from 'rxkube/browser'`.
 */
export * from '../../../src/browser/index.js';
