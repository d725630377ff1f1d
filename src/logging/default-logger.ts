import type { SchedulerLike } from 'rxjs';
import { jsonLogger } from './json-logger.js';
import type { LogLevel, Logger } from './logger.js';
import { noopLogger } from './noop-logger.js';
import { textLogger } from './text-logger.js';

/** A level, or `off` for no output at all. */
export type LogThreshold = LogLevel | 'off';

/** How records are written: lines for people, or one JSON object per line for a log pipeline. */
export type LogFormat = 'text' | 'json';

/** Options of {@link defaultLogger}. */
export interface DefaultLoggerOptions {
  /** Lowest level written. Default: from `RXKUBE_LOG`, else `info`. */
  readonly level?: LogThreshold;
  /** Default: from `RXKUBE_LOG`, else `text` when stderr is a terminal and `json` otherwise. */
  readonly format?: LogFormat;
  /** Receives each line. Default: `process.stderr.write`. */
  readonly write?: (line: string) => void;
  /** The environment to read `RXKUBE_LOG` from. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Whether the output is a terminal (text format, coloured). Default `process.stderr.isTTY`. */
  readonly isTTY?: boolean;
  /** Clock of the timestamps. */
  readonly scheduler?: SchedulerLike;
}

const LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error', 'off'];

/**
 * `RXKUBE_LOG`: a level (`debug`, `info`, `warn`, `error`, `off`), a format (`text`, `json`), or
 * both separated by a comma (`debug,json`). Unknown words are ignored.
 */
export function parseLogEnv(value: string | undefined): { level?: LogThreshold; format?: LogFormat } {
  const out: { level?: LogThreshold; format?: LogFormat } = {};
  for (const word of (value ?? '').split(/[,\s]+/)) {
    const w = word.trim().toLowerCase();
    if (LEVELS.includes(w)) out.level = w as LogThreshold;
    else if (w === 'text' || w === 'json') out.format = w;
  }
  return out;
}

/**
 * The logger a manager uses when it is given none: readable lines (`12:00:03.120 INFO  caches
 * synced informers=2 …`) on a terminal, JSON lines otherwise (what log collectors expect from a
 * pod), on stderr, at `info` unless the options or `RXKUBE_LOG` say otherwise
 * (`RXKUBE_LOG=debug`, `RXKUBE_LOG=warn,json`, `RXKUBE_LOG=off`).
 */
export function defaultLogger(options: DefaultLoggerOptions = {}): Logger {
  const fromEnv = parseLogEnv((options.env ?? process.env)['RXKUBE_LOG']);
  const level = options.level ?? fromEnv.level ?? 'info';
  if (level === 'off') return noopLogger;
  const tty = options.isTTY ?? process.stderr.isTTY === true;
  const format = options.format ?? fromEnv.format ?? (tty ? 'text' : 'json');
  const common = {
    level,
    ...(options.write === undefined ? {} : { write: options.write }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
  };
  return format === 'text' ? textLogger({ ...common, color: tty }) : jsonLogger(common);
}
