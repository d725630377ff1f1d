import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/events/core-event.js';
import { EventCorrelator } from '../../src/events/event-correlator.js';
import { EventWriter } from '../../src/events/event-writer.js';
import { noopLogger } from '../../src/logging/noop-logger.js';
import { fakeEventsApi } from './fake-events-api.js';

function event(name: string): CoreEvent {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'ns' },
    involvedObject: { kind: 'Pod', namespace: 'ns', name: 'web-1' },
    reason: `Reason-${name}`,
    message: name,
    source: { component: 'c' },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
    count: 1,
    type: 'Normal',
  };
}

function setup() {
  const scheduler = new VirtualTimeScheduler();
  const fake = fakeEventsApi();
  let n = 0;
  const writer = new EventWriter({
    api: fake.api,
    correlator: new EventCorrelator(scheduler, {}, (o) => `${o}.${n++}`),
    scheduler,
    logger: noopLogger,
    maxTries: 3,
    retryIntervalMs: 1_000,
  });
  return { scheduler, fake, writer };
}

describe('EventWriter: the event recorder’s background writes (writing → stopped)', () => {
  it('counts what waits, including an event between retries, and flush resolves when nothing does', async () => {
    const { scheduler, fake, writer } = setup();
    fake.failures.push(new Error('connection reset'));
    writer.enqueue(event('a'));
    writer.enqueue(event('b'));
    expect(writer.pending).toBe(2); // a waits for its retry, b behind it
    let flushed = false;
    void writer.flush().then(() => (flushed = true));
    await Promise.resolve();
    expect(flushed).toBe(false);
    scheduler.flush();
    await Promise.resolve();
    expect(writer.pending).toBe(0);
    expect(flushed).toBe(true);
    expect(fake.events().map((e) => e.message)).toEqual(['a', 'b']);
  });

  it('stopped: takes nothing more, abandons what waits and resolves every flush', async () => {
    const { scheduler, fake, writer } = setup();
    fake.failures.push(new Error('connection reset'));
    writer.enqueue(event('a'));
    const flushed = writer.flush();
    writer.stop();
    expect(writer.isWriting).toBe(false);
    expect(writer.pending).toBe(0);
    await flushed;
    writer.enqueue(event('b'));
    expect(writer.pending).toBe(0);
    scheduler.flush();
    expect(fake.events()).toEqual([]); // a's retry was abandoned, b never taken
  });
});
