/**
 * `rxkube/logging`: logging helpers beyond the four loggers of the front door.
 *
 * One door per name: what the root entry (`rxkube`) exports is not repeated here.
 *
 * @module rxkube/logging
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { objectRef } from './object-ref.js';
export type { ObjectRefTarget } from './object-ref.js';

// Credentials in use, masked wherever text is quoted (errors, log lines).
export { redactSecrets, rememberSecret, SECRET_MASK } from './known-secrets.js';
