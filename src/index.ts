export * from './client/index.js';
export * from './cache/index.js';
export * from './workqueue/index.js';
export * from './reflector/index.js';
export * from './logging/index.js';
export * from './metrics/index.js';
export * from './events/index.js';
export * from './manager/index.js';
