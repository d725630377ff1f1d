import type { Observable, Subscription } from 'rxjs';
import type { Registry } from 'prom-client';
import { gaugeIn } from './metric-helpers.js';

/**
 * Sets `leader_election_master_status{name}` in `registry` to 1 while `leading$` says true and 0
 * otherwise (0 also after `leading$` ends or errors). Unsubscribe to stop tracking.
 */
export function trackLeaderStatus(registry: Registry, name: string, leading$: Observable<boolean>): Subscription {
  const set = leaderStatusMetric(registry, name);
  return leading$.subscribe({
    next: (leading) => set(leading),
    error: () => set(false),
    complete: () => set(false),
  });
}

/**
 * Registers `leader_election_master_status{name}` (initially 0) and returns its setter, for callers
 * that already subscribe to the election themselves.
 */
export function leaderStatusMetric(registry: Registry, name: string): (leading: boolean) => void {
  const gauge = gaugeIn(registry, 'leader_election_master_status',
    'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
    ['name']);
  gauge.set({ name }, 0);
  return (leading) => gauge.set({ name }, leading ? 1 : 0);
}
