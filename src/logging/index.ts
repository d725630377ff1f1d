export {
  LOG_LEVEL_RANK,
} from './logger.js';
export type {
  LogFields,
  LogLevel,
  Logger,
} from './logger.js';
export {
  noopLogger,
} from './noop-logger.js';
export {
  REDACTED,
  isSecretKey,
  redact,
  redactString,
} from './redact.js';
export {
  jsonLogger,
} from './json-logger.js';
export type {
  JsonLoggerOptions,
} from './json-logger.js';
export {
  objectRef,
} from './object-ref.js';
export type {
  ObjectRefTarget,
} from './object-ref.js';
export {
  reconcileLogger,
} from './reconcile-logger.js';
export {
  textLogger,
} from './text-logger.js';
export type {
  TextLoggerOptions,
} from './text-logger.js';
export {
  defaultLogger,
  parseLogEnv,
} from './default-logger.js';
export type {
  DefaultLoggerOptions,
  LogFormat,
  LogThreshold,
} from './default-logger.js';
export {
  LOGGER_KEY,
} from './logger-key.js';
