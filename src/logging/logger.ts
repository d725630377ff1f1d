/** Severity of a log record, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured fields attached to a log record (e.g. `controller`, `object`, `reconcileID`). */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * The small structured logger every rxkube component accepts. Implementations must never throw.
 * `child(fields)` returns a logger that adds `fields` to every record it writes.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** Numeric rank of each level, used for threshold filtering. */
export const LOG_LEVEL_RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };
