export * from './logger.js';
export * from './noop-logger.js';
export * from './redact.js';
export * from './json-logger.js';
export * from './object-ref.js';
export * from './reconcile-logger.js';
