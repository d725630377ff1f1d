import type { EventRecorder } from '../events/event-recorder.js';

/** An event recorder that drops every event; the default of a controller built without one. */
export const noopEventRecorder: EventRecorder = {
  event: () => undefined,
  annotatedEvent: () => undefined,
  flush: () => Promise.resolve(),
  shutdown: () => undefined,
};
