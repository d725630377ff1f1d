export * from './client/index.js';
export * from './cache/index.js';
export * from './workqueue/index.js';
export * from './reflector/index.js';
