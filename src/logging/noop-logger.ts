import type { Logger } from './logger.js';

/** A logger that drops every record; the default when a component is given none. */
export const noopLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => noopLogger,
};
