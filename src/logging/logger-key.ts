import { dependencyKey } from '../api/runnable.js';
import type { Logger } from './logger.js';

/**
 * The manager's logger, for `Runnable.inject` (`deps.get(LOGGER_KEY)`). It carries no name: a
 * runnable adds its own (`logger.child({ controller: name })`).
 */
export const LOGGER_KEY = dependencyKey<Logger>('rxkube.logger');
