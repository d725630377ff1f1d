/**
 * Fenced Events: an event recorded with a fence (directly through `EventOptions.fence`, or through
 * a `fencedRecorder` view) is not sent once the fence aborted — refused when recorded after,
 * dropped when still waiting, between retries or on the wire — while events without that fence go
 * on. The drop is counted in `rxkube_events_fenced_total` and logged once with the count.
 */
import { Registry } from 'prom-client';
import { type Observable, VirtualTimeScheduler, defer, map, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CoreEvent } from '../../src/events/core-event.js';
import { eventRecorder } from '../../src/events/event-recorder.js';
import type { EventsApi } from '../../src/events/events-api.js';
import { fencedRecorder } from '../../src/controller/fenced-recorder.js';
import type { Logger, LogFields } from '../../src/logging/logger.js';
import { eventRecorderMetrics } from '../../src/metrics/event-recorder-metrics.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name } });

/** An EventsApi whose creates take `latencyMs` virtual ms; records when each was sent and answered. */
function slowEventsApi(scheduler: VirtualTimeScheduler, latencyMs: number, transportFailures = 0) {
  const sent: { at: number; object: string; message: string }[] = [];
  const answered: string[] = [];
  let failures = transportFailures;
  const api: EventsApi = {
    create: (_ns, event): Observable<CoreEvent> =>
      defer(() => {
        sent.push({ at: scheduler.now(), object: event.involvedObject.name ?? '', message: event.message ?? '' });
        return timer(latencyMs, scheduler).pipe(
          map(() => {
            if (failures > 0) {
              failures--;
              throw new Error('connection reset');
            }
            answered.push(event.message ?? '');
            return event;
          }),
        );
      }),
    patch: () => {
      throw new Error('no patches expected');
    },
  };
  return { api, sent, answered };
}

function setup(latencyMs: number, transportFailures = 0) {
  const scheduler = new VirtualTimeScheduler();
  const fake = slowEventsApi(scheduler, latencyMs, transportFailures);
  const logs: { level: string; message: string; fields: LogFields | undefined }[] = [];
  const logger: Logger = {
    debug: (message, fields) => logs.push({ level: 'debug', message, fields }),
    info: (message, fields) => logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => logs.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  const registry = new Registry();
  const recorder = eventRecorder({
    api: fake.api,
    source: { component: 'widgets' },
    scheduler,
    logger,
    retryIntervalMs: 1_000,
    metrics: eventRecorderMetrics(registry),
  });
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.maxFrames = scheduler.now() + ms;
    scheduler.flush();
  };
  const fencedCount = async (): Promise<number> => {
    const metric = await registry.getSingleMetric('rxkube_events_fenced_total')?.get();
    return metric?.values.find((v) => v.labels['component'] === 'widgets')?.value ?? -1;
  };
  return { scheduler, fake, recorder, logs, advance, fencedCount };
}

describe('fenced Events', () => {
  it('drops the queued and in-flight events of a fence when it aborts, refuses later ones, and keeps writing the others', async () => {
    const { fake, recorder, logs, advance, scheduler, fencedCount } = setup(100);
    const lost = new AbortController();
    const fenced = fencedRecorder(recorder, lost.signal);
    expect(await fencedCount()).toBe(0);
    for (let i = 0; i < 5; i++) fenced.event(cm(`c${i}`), 'Normal', 'Reconciled', `fenced ${i}`);
    recorder.event(cm('lease'), 'Normal', 'LeaderElection', 'me stopped leading'); // no fence
    advance(150); // fenced 0 answered, fenced 1 on the wire
    expect(fake.answered).toEqual(['fenced 0']);
    expect(fake.sent.map((s) => s.message)).toEqual(['fenced 0', 'fenced 1']);

    const lostAt = scheduler.now();
    lost.abort(new Error('leadership lost'));
    fenced.event(cm('late'), 'Warning', 'Reconciled', 'recorded after the loss');
    fenced.annotatedEvent(cm('late2'), { a: 'b' }, 'Normal', 'Reconciled', 'annotated after the loss');
    advance(1_000);
    await recorder.flush();

    const after = fake.sent.filter((s) => s.at >= lostAt);
    expect(after.map((s) => s.message)).toEqual(['me stopped leading']);
    expect(fake.answered).toEqual(['fenced 0', 'me stopped leading']);
    // fenced 1 (on the wire, abandoned) + fenced 2..4 (waiting) dropped at once, then 2 refused.
    expect(await fencedCount()).toBe(4 + 2);
    const dropLogs = logs.filter((l) => l.level === 'warn' && l.message.includes('fenced'));
    expect(dropLogs).toHaveLength(1);
    expect(dropLogs[0]?.fields).toMatchObject({ dropped: 4 });
  });

  it('does not retry an event whose fence aborted while it waited between attempts', async () => {
    const { fake, recorder, advance, fencedCount } = setup(10, 1);
    const lost = new AbortController();
    recorder.event(cm('a'), 'Normal', 'Reconciled', 'retried', { fence: lost.signal });
    advance(100); // first attempt failed at 10; the retry waits until 1010
    expect(fake.sent).toHaveLength(1);
    lost.abort();
    advance(5_000);
    await recorder.flush();
    expect(fake.sent).toHaveLength(1);
    expect(fake.answered).toEqual([]);
    expect(await fencedCount()).toBe(1);
  });

  it('writes fenced events as before while the fence holds, and lets go of the fence once they are sent', async () => {
    const { fake, recorder, advance, fencedCount } = setup(10);
    const fence = new AbortController();
    const fenced = fencedRecorder(recorder, fence.signal);
    for (let i = 0; i < 3; i++) fenced.event(cm(`c${i}`), 'Normal', 'Reconciled', `m${i}`);
    advance(100);
    await recorder.flush();
    expect(fake.answered).toEqual(['m0', 'm1', 'm2']);
    fence.abort(); // nothing left to drop
    expect(await fencedCount()).toBe(0);
  });
});
