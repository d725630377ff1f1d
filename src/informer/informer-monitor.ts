import type { Subscription } from 'rxjs';
import { dependencyKey } from '../api/runnable.js';
import type { KubeClientBase } from '../client/kube-client-base.js';
import type { SharedInformer } from './shared-informer-interface.js';

/** A set of informers a cache runnable is about to run, as it hands them to an {@link InformerMonitor}. */
export interface MonitoredInformers {
  /** The cache runnable's name. */
  readonly name: string;
  /** The informers. */
  readonly informers: readonly SharedInformer[];
  /** The client they list and watch through (its server names the target in errors), if known. */
  readonly client?: KubeClientBase;
}

/**
 * Watches informers on behalf of their owner (the manager implements it): their reflector status
 * (metrics, logged failures), their sync and their last error, so that a cache that does not sync
 * can say why. A cache runnable calls `track` when it starts, before subscribing to the
 * informers, and unsubscribes the result when it stops.
 */
export interface InformerMonitor {
  track(target: MonitoredInformers): Subscription;
}

/** The manager's {@link InformerMonitor}, for `Runnable.inject` (`deps.get(INFORMER_MONITOR_KEY)`). */
export const INFORMER_MONITOR_KEY = dependencyKey<InformerMonitor>('rxkube.informer-monitor');
