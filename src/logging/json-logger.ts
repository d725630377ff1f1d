import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { LogFields, LogLevel, Logger } from './logger.js';
import { LOG_LEVEL_RANK } from './logger.js';
import { redact, redactString } from './redact.js';

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Receives one complete JSON line (with trailing newline). Default: `process.stderr.write`. */
  readonly write?: (line: string) => void;
  /** Records below this level are dropped. Default `info`. */
  readonly level?: LogLevel;
  /** Clock for the `ts` field. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Fields added to every record. */
  readonly fields?: LogFields;
}

/**
 * A {@link Logger} writing one JSON object per line: `{"ts":"…","level":"info","msg":"…",…fields}`.
 * Every record passes through {@link redact}, so Authorization headers, bearer tokens and
 * secret-looking fields never reach the output. A failing writer is ignored.
 *
 * @example
 * const log = jsonLogger({ level: 'debug' }).child({ controller: 'replicaset' });
 * log.info('reconciled', { object: 'default/web', reconcileID: ctx.reconcileId });
 */
export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const threshold = LOG_LEVEL_RANK[options.level ?? 'info'];
  const scheduler = options.scheduler ?? asyncScheduler;
  const make = (base: LogFields): Logger => {
    const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
      if (LOG_LEVEL_RANK[level] < threshold) return;
      try {
        const safe = redact({ ...base, ...fields }) as Record<string, unknown>;
        const record = {
          ts: new Date(scheduler.now()).toISOString(),
          level,
          msg: redactString(String(message)),
          ...safe,
        };
        write(`${JSON.stringify(record)}\n`);
      } catch {
        // Logging must never break the caller.
      }
    };
    return {
      debug: (m, f) => emit('debug', m, f),
      info: (m, f) => emit('info', m, f),
      warn: (m, f) => emit('warn', m, f),
      error: (m, f) => emit('error', m, f),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return make(options.fields ?? {});
}
