import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { COMBINED_EVENT_PREFIX } from '../../src/events/event-correlator.js';
import { TokenBucket } from '../../src/events/token-bucket.js';
import { eventRecorder, kubeTime } from '../../src/events/event-recorder.js';
import type { Logger } from '../../src/logging/logger.js';
import { fakeEventsApi } from './fake-events-api.js';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ns', name: 'web-1', uid: 'u1', resourceVersion: '7' } };

function setup(extra: Partial<Parameters<typeof eventRecorder>[0]> = {}) {
  const scheduler = new VirtualTimeScheduler();
  const fake = fakeEventsApi();
  const logs: string[] = [];
  const logger: Logger = {
    debug: (m) => logs.push(`debug ${m}`),
    info: (m) => logs.push(`info ${m}`),
    warn: (m) => logs.push(`warn ${m}`),
    error: (m) => logs.push(`error ${m}`),
    child: () => logger,
  };
  const recorder = eventRecorder({ api: fake.api, source: { component: 'rs-controller', host: 'node-a' }, scheduler, logger, ...extra });
  const advance = (ms: number) => {
    scheduler.schedule(() => undefined, ms);
    scheduler.maxFrames = scheduler.now() + ms;
    scheduler.flush();
  };
  return { scheduler, fake, recorder, logs, advance };
}

describe('eventRecorder', () => {
  it('creates a core/v1 Event with reference, source, count 1 and timestamps', async () => {
    const { fake, recorder, advance } = setup();
    advance(1_700_000_000_000);
    recorder.event(pod, 'Normal', 'Created', 'created pod');
    await recorder.flush();
    const [e] = fake.events();
    expect(e).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'ns' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'web-1', uid: 'u1', resourceVersion: '7' },
      reason: 'Created',
      message: 'created pod',
      type: 'Normal',
      count: 1,
      source: { component: 'rs-controller', host: 'node-a' },
      firstTimestamp: kubeTime(1_700_000_000_000),
      lastTimestamp: '2023-11-14T22:13:20Z',
      reportingComponent: 'rs-controller',
      reportingInstance: 'node-a',
    });
    expect(e?.metadata.name).toMatch(/^web-1\.[0-9a-f]+$/);
  });

  it('turns an exact repeat into a patch of count and lastTimestamp on the same Event', async () => {
    const { fake, recorder, advance } = setup();
    recorder.event(pod, 'Warning', 'Failed', 'image pull failed');
    advance(5_000);
    recorder.event(pod, 'Warning', 'Failed', 'image pull failed');
    advance(5_000);
    recorder.event(pod, 'Warning', 'Failed', 'image pull failed');
    await recorder.flush();
    expect(fake.calls.map((c) => c.replace(/web-1\.[0-9a-f]+/, 'NAME'))).toEqual([
      'create ns/NAME count=1',
      'patch ns/NAME count=2',
      'patch ns/NAME count=3',
    ]);
    const [e] = fake.events();
    expect(fake.events()).toHaveLength(1);
    expect(e).toMatchObject({ count: 3, firstTimestamp: kubeTime(0), lastTimestamp: kubeTime(10_000) });
  });

  it('keeps different messages, reasons and objects as separate Events', async () => {
    const { fake, recorder } = setup();
    recorder.event(pod, 'Normal', 'A', 'one');
    recorder.event(pod, 'Normal', 'A', 'two');
    recorder.event(pod, 'Normal', 'B', 'one');
    recorder.event({ ...pod, metadata: { ...pod.metadata, name: 'web-2', uid: 'u2' } }, 'Normal', 'A', 'one');
    await recorder.flush();
    expect(fake.events()).toHaveLength(4);
    expect(new Set(fake.events().map((e) => e.metadata.name)).size).toBe(4);
  });

  it('combines the 10th and later distinct messages of one reason into a counted combined Event', async () => {
    const { fake, recorder } = setup();
    for (let i = 0; i < 12; i++) recorder.event(pod, 'Warning', 'BackOff', `attempt ${i}`);
    await recorder.flush();
    const combined = fake.events().filter((e) => e.message.startsWith(COMBINED_EVENT_PREFIX));
    expect(fake.events()).toHaveLength(10);
    expect(combined).toHaveLength(1);
    expect(combined[0]).toMatchObject({ count: 3, message: `${COMBINED_EVENT_PREFIX}attempt 11` });
  });

  it('starts a fresh aggregation window after 10 minutes without similar events', async () => {
    const { fake, recorder, advance } = setup();
    for (let i = 0; i < 9; i++) recorder.event(pod, 'Warning', 'BackOff', `m${i}`);
    advance(600_001);
    recorder.event(pod, 'Warning', 'BackOff', 'm9');
    await recorder.flush();
    expect(fake.events().some((e) => e.message.startsWith(COMBINED_EVENT_PREFIX))).toBe(false);
  });

  it('drops events beyond the per-object burst of 25 and admits one more every 5 minutes', async () => {
    const { fake, recorder, advance } = setup();
    for (let i = 0; i < 30; i++) recorder.event(pod, 'Normal', `R${i}`, 'same');
    await recorder.flush();
    expect(fake.calls).toHaveLength(25);
    advance(299_000);
    recorder.event(pod, 'Normal', 'Late', 'x');
    await recorder.flush();
    expect(fake.calls).toHaveLength(25);
    advance(1_000);
    recorder.event(pod, 'Normal', 'Later', 'x');
    await recorder.flush();
    expect(fake.calls).toHaveLength(26);
    recorder.event({ ...pod, metadata: { ...pod.metadata, name: 'other', uid: 'u9' } }, 'Normal', 'R', 'x');
    await recorder.flush();
    expect(fake.calls).toHaveLength(27);
  });

  it('recreates the Event when the patch finds it deleted', async () => {
    const { fake, recorder } = setup();
    recorder.event(pod, 'Normal', 'R', 'm');
    await recorder.flush();
    fake.store.clear();
    recorder.event(pod, 'Normal', 'R', 'm');
    await recorder.flush();
    expect(fake.calls.map((c) => c.split(' ')[0])).toEqual(['create', 'patch', 'create']);
    expect(fake.events()[0]?.count).toBe(2);
  });

  it('retries transport errors 10s apart up to 12 tries, and does not retry API errors', async () => {
    const { fake, recorder, advance, logs } = setup();
    fake.failures.push(new Error('ECONNRESET'), new Error('ECONNRESET'));
    recorder.event(pod, 'Normal', 'R', 'm');
    let flushed = false;
    void recorder.flush().then(() => (flushed = true));
    expect(fake.calls).toHaveLength(1);
    advance(9_999);
    expect(fake.calls).toHaveLength(1);
    advance(1);
    expect(fake.calls).toHaveLength(2);
    advance(10_000);
    expect(fake.calls).toHaveLength(3);
    await recorder.flush();
    expect(flushed).toBe(true);
    expect(fake.events()).toHaveLength(1);

    for (let i = 0; i < 20; i++) fake.failures.push(new Error('down'));
    recorder.event(pod, 'Normal', 'Other', 'm');
    advance(200_000);
    await recorder.flush();
    expect(fake.calls).toHaveLength(3 + 12);
    expect(logs).toContain('error unable to write event (giving up)');

    fake.failures.length = 0;
    const before = fake.calls.length;
    fake.failures.push(new (await import('../../src/client/api-error.js')).ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'no' }));
    recorder.event(pod, 'Normal', 'Third', 'm');
    advance(100_000);
    await recorder.flush();
    expect(fake.calls.length - before).toBe(1);
    expect(logs).toContain('error server rejected event (will not retry)');
  });

  it('rejects unsupported types and objects without kind or name, losing nothing else', async () => {
    const { fake, recorder, logs } = setup();
    recorder.event(pod, 'Bogus' as 'Normal', 'R', 'm');
    recorder.event({ metadata: { name: 'x' } }, 'Normal', 'R', 'm');
    recorder.event(pod, 'Normal', 'R', 'kept');
    await recorder.flush();
    expect(fake.events().map((e) => e.message)).toEqual(['kept']);
    expect(logs.filter((l) => l.startsWith('error'))).toHaveLength(2);
  });

  it('defaults the namespace of cluster-scoped objects to default and carries annotations', async () => {
    const { fake, recorder } = setup();
    recorder.annotatedEvent({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, { a: 'b' }, 'Normal', 'R', 'm');
    await recorder.flush();
    expect(fake.events()[0]?.metadata).toMatchObject({ namespace: 'default', annotations: { a: 'b' } });
  });

  it('ignores events after shutdown', async () => {
    const { fake, recorder } = setup();
    recorder.shutdown();
    recorder.event(pod, 'Normal', 'R', 'm');
    await recorder.flush();
    expect(fake.calls).toHaveLength(0);
  });
});

describe('TokenBucket', () => {
  it('starts full, refills at qps and caps at burst', () => {
    const s = new VirtualTimeScheduler();
    const b = new TokenBucket(1, 2, s);
    expect([b.tryTake(), b.tryTake(), b.tryTake()]).toEqual([true, true, false]);
    s.schedule(() => undefined, 10_000);
    s.flush();
    expect([b.tryTake(), b.tryTake(), b.tryTake()]).toEqual([true, true, false]);
    expect(() => new TokenBucket(1, 0, s)).toThrow(RangeError);
  });
});
