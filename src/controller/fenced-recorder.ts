import type { EventOptions, EventRecorder } from '../events/event-recorder.js';

/**
 * A view of `recorder` whose every event carries `fence` as its right to write
 * ({@link EventOptions.fence}, combined with a fence the call gives itself): once `fence` has
 * aborted, what is recorded through the view is refused and what it queued and was not sent yet is
 * dropped, while events recorded through `recorder` itself (or another view) go on. A controller
 * hands its reconciles such a view (`ctx.recorder`), bound to its fence, which aborts when
 * leadership is lost. `flush` and `shutdown` are the recorder's own.
 *
 * @example
 * const recorder = mgr.getEventRecorder('widgets');
 * const lost = new AbortController();
 * const fenced = fencedRecorder(recorder, lost.signal);
 * fenced.event(orphan, 'Normal', 'Started', 'started'); // written
 * lost.abort(new LeadershipLostError());
 * fenced.event(orphan, 'Normal', 'Stopped', 'stopped'); // not written
 */
export function fencedRecorder(recorder: EventRecorder, fence: AbortSignal): EventRecorder {
  // One combined signal per fence a call brings (a view over a view: a controller's own fence over
  // the manager's), so the recorder watches one fence for all of them and reports a loss once.
  const combined = new WeakMap<AbortSignal, AbortSignal>();
  const withFence = (options: EventOptions | undefined): EventOptions => {
    const own = options?.fence;
    if (own === undefined || own === fence) return { ...options, fence };
    let both = combined.get(own);
    if (both === undefined) {
      both = AbortSignal.any([fence, own]);
      combined.set(own, both);
    }
    return { ...options, fence: both };
  };
  return {
    event: (object, type, reason, message, options) => recorder.event(object, type, reason, message, withFence(options)),
    annotatedEvent: (object, annotations, type, reason, message, options) =>
      recorder.annotatedEvent(object, annotations, type, reason, message, withFence(options)),
    flush: () => recorder.flush(),
    shutdown: () => recorder.shutdown(),
  };
}
