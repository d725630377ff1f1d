import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { LogFields, LogLevel, Logger } from './logger.js';
import { LOG_LEVEL_RANK } from './logger.js';
import { REDACTED, isSecretKey, redact, redactString } from './redact.js';

/** Options of {@link textLogger}. */
export interface TextLoggerOptions {
  /** Receives one complete line (with trailing newline). Default: `process.stderr.write`. */
  readonly write?: (line: string) => void;
  /** Records below this level are dropped. Default `info`. */
  readonly level?: LogLevel;
  /** Colour the level (ANSI escapes). Default false. */
  readonly color?: boolean;
  /** Clock for the timestamp. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Fields added to every record. */
  readonly fields?: LogFields;
}

const LABEL: Readonly<Record<LogLevel, string>> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' };
const COLOR: Readonly<Record<LogLevel, string>> = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' };

/**
 * A {@link Logger} for people: one line per record, `time LEVEL message key=value …`, with the
 * same redaction as {@link jsonLogger}. Errors print as their message (and, at `debug`, their
 * stack on the lines below). A failing writer is ignored.
 *
 * ```
 * 12:00:03.120 INFO  caches synced informers=2 objects=14 durationMs=213
 * 12:00:03.125 ERROR Reconciler error controller=replicaset object=default/web err="409 Conflict: …"
 * ```
 */
export function textLogger(options: TextLoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const threshold = LOG_LEVEL_RANK[options.level ?? 'info'];
  const scheduler = options.scheduler ?? asyncScheduler;
  const color = options.color ?? false;
  const make = (base: LogFields): Logger => {
    const emit = (level: LogLevel, message: string, fields?: LogFields): void => {
      if (LOG_LEVEL_RANK[level] < threshold) return;
      try {
        const all = { ...base, ...fields };
        const time = new Date(scheduler.now()).toISOString().slice(11, 23);
        const label = color ? `${COLOR[level]}${LABEL[level]}\x1b[0m` : LABEL[level];
        let line = `${time} ${label} ${redactString(String(message))}`;
        const stacks: string[] = [];
        for (const [key, value] of Object.entries(all)) {
          if (value === undefined) continue;
          line += ` ${redactString(key)}=${isSecretKey(key) ? REDACTED : formatValue(value)}`;
          if (value instanceof Error && threshold <= LOG_LEVEL_RANK.debug && value.stack !== undefined) stacks.push(redactString(value.stack));
        }
        write(`${line}\n${stacks.map((s) => `${indent(s)}\n`).join('')}`);
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

/** A field value as one token: bare when it has no spaces or quotes, JSON-quoted otherwise. */
function formatValue(value: unknown): string {
  if (value instanceof Error) return quote(redactString(describeError(value)));
  const safe = redact(value);
  const text = typeof safe === 'string' ? safe : JSON.stringify(safe) ?? String(safe);
  return quote(text);
}

/** An error's message with the messages of its causes (`a: b: c`), without repeating them. */
function describeError(err: Error): string {
  let text = err.message || err.name;
  let cause: unknown = err.cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    if (!text.includes(cause.message)) text += `: ${cause.message}`;
    cause = cause.cause;
  }
  return text;
}

function quote(text: string): string {
  return text === '' || /[\s"=]/.test(text) ? JSON.stringify(text) : text;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}
