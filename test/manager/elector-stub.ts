import { Observable, Subject } from 'rxjs';
import type { Leadership, ManagerLeaderElectionConfig } from '../../src/manager/leader-election-options.js';

/** A controllable Leadership: push `true`/`false` into `leading`; `events` logs campaign/cancel. */
export function electorStub() {
  const leading = new Subject<boolean>();
  const events: string[] = [];
  const configs: ManagerLeaderElectionConfig[] = [];
  const factory = (c: ManagerLeaderElectionConfig): Leadership => {
    configs.push(c);
    return {
      leading$: new Observable<boolean>((sub) => {
        events.push('campaign');
        const s = leading.subscribe(sub);
        return () => {
          events.push('cancel');
          s.unsubscribe();
        };
      }),
    };
  };
  return { leading, events, configs, factory };
}
