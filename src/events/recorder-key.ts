import { dependencyKey } from '../api/runnable.js';
import type { EventRecorder } from './event-recorder.js';

/**
 * The manager's event recorders, for `Runnable.inject`: `deps.get(EVENT_RECORDERS_KEY)?.(component)`
 * returns a recorder reporting as `component`, written through the manager's client, flushed and
 * shut down when the manager stops. Absent when the manager has no client.
 */
export const EVENT_RECORDERS_KEY = dependencyKey<(component: string) => EventRecorder>('rxkube.event-recorders');
