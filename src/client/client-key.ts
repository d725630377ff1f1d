import { dependencyKey } from '../api/runnable.js';
import type { KubeClient } from './kube-client.js';

/** The manager's client, for `Runnable.inject` (`deps.get(KUBE_CLIENT_KEY)`); absent when it has none. */
export const KUBE_CLIENT_KEY = dependencyKey<KubeClient>('rxkube.client');
