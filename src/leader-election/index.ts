export * from './lease.js';
export * from './lease-api.js';
export * from './lease-lock.js';
export * from './leader-election-config.js';
export * from './leader-elector.js';
export * from './leader-election.js';
export * from './while-leading.js';
export * from './in-memory-lease-api.js';
