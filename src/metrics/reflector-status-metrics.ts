import type { Observer } from 'rxjs';
import type { ReflectorStatus } from '../reflector/reflector-status.js';
import type { ReflectorMetricsRecorder } from './reflector-metrics.js';

/**
 * An observer of a reflector's status updates (the `status` option of `listWatch`, or
 * `reflector(...).status$`) that feeds `recorder` under `name`: `listed` → a list with its item
 * count and resourceVersion; `watching` / `streaming` → a watch; `error` → a failure of whichever
 * request (list or watch) was last sent; `backingOff` → the wait (`waiting`), back to 0 at the next
 * request.
 */
export function reflectorStatusMetrics(recorder: ReflectorMetricsRecorder, name: string): Partial<Observer<ReflectorStatus>> {
  let phase: 'list' | 'watch' = 'list';
  let waiting = false;
  const requesting = (): void => {
    if (!waiting) return;
    waiting = false;
    recorder.waiting?.(name, 0);
  };
  return {
    next: (s) => {
      if (s.type !== 'backingOff' && s.type !== 'error') requesting();
      switch (s.type) {
        case 'backingOff':
          waiting = true;
          recorder.waiting?.(name, s.delayMs);
          break;
        case 'listing':
          phase = 'list';
          break;
        case 'listed':
          recorder.listed(name, s.itemCount, s.resourceVersion);
          break;
        case 'watching':
        case 'streaming':
          phase = 'watch';
          recorder.watchStarted(name);
          break;
        case 'error':
          recorder.failed(name, phase);
          break;
        default:
          break;
      }
    },
  };
}
