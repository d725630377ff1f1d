/**
 * `rxkube/sharding`: controllers whose objects are spread over several replicas by a hash ring of
 * Leases — `shardedController` (a controller per lease term, built on `controller()`) and the
 * `sharder` that assigns objects to shards.
 *
 * @module rxkube/sharding
 */

// First: fails the import on a Node.js older than package.json's `engines`, with a message.
import '../api/require-node.js';

export { shardedController } from './sharded-controller.js';
export type { ShardedController, ShardedControllerOptions, ShardingOptions } from './sharded-controller.js';
export { sharder } from './sharder.js';
export type { SharderOptions } from './sharder.js';
