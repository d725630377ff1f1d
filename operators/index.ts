export * from './delta-fifo.js';
export * from './index-store.js';
export * from './handler-events.js';
export * from './filter-transitions.js';
export * from '../src/cache/index.js';
export * from './work-queue.js';
