import { randomUUID } from 'node:crypto';
import type { Logger } from './logger.js';
import type { ObjectRefTarget } from './object-ref.js';
import { objectRef } from './object-ref.js';

/**
 * A child of `logger` for one reconcile, carrying controller-runtime's standard fields:
 * `controller`, `object` (`"ns/name"`) and `reconcileID` (a fresh UUID unless given).
 */
export function reconcileLogger(
  logger: Logger,
  controller: string,
  target: ObjectRefTarget,
  reconcileID: string = randomUUID(),
): Logger {
  return logger.child({ controller, object: objectRef(target), reconcileID });
}
