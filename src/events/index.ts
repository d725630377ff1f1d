export * from './core-event.js';
export * from './events-api.js';
export * from './token-bucket.js';
export * from './lru-cache.js';
export * from './event-correlator.js';
export * from './event-recorder.js';
export * from './client-events-api.js';
