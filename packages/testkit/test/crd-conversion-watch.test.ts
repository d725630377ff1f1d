/**
 * CRD conversion webhooks on watch events: a watch in another version than the objects were
 * written in gets them converted by the webhook, asynchronously but in the order of the events
 * (a later event, already in the watched version, waits for an earlier one being converted); a
 * failed conversion ends the watch with an ERROR event; a watch whose conversions pile up past
 * the bound is ended (the client watches again).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '@rxkube/testkit';
import { MAX_PENDING_WATCH_CONVERSIONS } from '../src/api-server/admission/webhooks/crd-conversion.js';
import { conversionFailure, convertWidgets, startConversionSetup, webhookConversion, widgetCrd, type ConversionSetup } from './crd-conversion-fixture.js';
import { openWatch } from './helpers.js';
import type { FakeWebhook, Json } from './webhook-fixture.js';

const GROUP = 'watch.example.com';
const BASE = `/apis/${GROUP}`;

describe('embedded API server: CRD conversion webhooks on watch events', () => {
  let server: ApiServer;
  let call: ConversionSetup['call'];
  let wh: FakeWebhook;
  let setup: ConversionSetup | undefined;
  let n = 0;

  beforeAll(async () => {
    setup = await startConversionSetup((hook) => [widgetCrd(GROUP, { conversion: webhookConversion(`${hook.url}/convert`, hook.caBundle) })]);
    ({ server, call, wh } = setup);
  });
  afterAll(() => setup?.close());
  afterEach(() => setup?.reset());

  const ns = (): string => `w${++n}`;
  const widget = (version: string, name: string, spec: Json): Json => ({ apiVersion: `${GROUP}/${version}`, kind: 'Widget', metadata: { name }, spec });

  it('initial and live events arrive converted to the watched version, in order', async () => {
    const space = ns();
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space } });
    expect((await call('POST', `${BASE}/v1/namespaces/${space}/widgets`, widget('v1', 'a', { size: 1 }))).status).toBe(201);
    const watch = await openWatch(server.url, `${BASE}/v2/namespaces/${space}/widgets?watch=true`);
    try {
      const [added] = await watch.next(1);
      expect([added?.type, added?.object['apiVersion'], added?.object['spec']]).toEqual(['ADDED', `${GROUP}/v2`, { replicas: 1 }]);
      await call('POST', `${BASE}/v1/namespaces/${space}/widgets`, widget('v1', 'b', { size: 2 }));
      await call('POST', `${BASE}/v2/namespaces/${space}/widgets`, widget('v2', 'c', { replicas: 3 }));
      const live = await watch.next(2);
      expect(live.map((e) => [e.type, (e.object['metadata'] as Json)['name'], e.object['apiVersion'], e.object['spec']])).toEqual([
        ['ADDED', 'b', `${GROUP}/v2`, { replicas: 2 }],
        ['ADDED', 'c', `${GROUP}/v2`, { replicas: 3 }],
      ]);
    } finally {
      watch.close();
    }
  });

  it('an event already in the watched version waits behind one still being converted', async () => {
    const space = ns();
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space } });
    const watch = await openWatch(server.url, `${BASE}/v2/namespaces/${space}/widgets?watch=true`);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    wh.handler = async (review) => {
      await held;
      return convertWidgets(review);
    };
    try {
      // slow: written in v1, converted by the held webhook; fast: written in v2, nothing to convert.
      server.create({ ...widget('v1', 'slow', { size: 1 }), metadata: { name: 'slow', namespace: space } } as never);
      server.create({ ...widget('v2', 'fast', { replicas: 2 }), metadata: { name: 'fast', namespace: space } } as never);
      await new Promise((r) => setTimeout(r, 100));
      expect(watch.all).toEqual([]);
      release();
      const events = await watch.next(2);
      expect(events.map((e) => (e.object['metadata'] as Json)['name'])).toEqual(['slow', 'fast']);
      expect(events[0]?.object['spec']).toEqual({ replicas: 1 });
    } finally {
      watch.close();
    }
  });

  it('a failed conversion ends the watch with an ERROR event naming the webhook failure', async () => {
    const space = ns();
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space } });
    const watch = await openWatch(server.url, `${BASE}/v2/namespaces/${space}/widgets?watch=true`);
    wh.handler = (review) => conversionFailure(review, 'no converter');
    try {
      await call('POST', `${BASE}/v1/namespaces/${space}/widgets`, widget('v1', 'x', { size: 1 }));
      const [error] = await watch.next(1);
      expect(error?.type).toBe('ERROR');
      expect(error?.object).toMatchObject({ kind: 'Status', code: 500, message: `conversion webhook for ${GROUP}/v1, Kind=Widget failed: no converter` });
      await watch.ended;
    } finally {
      watch.close();
    }
  });

  it(`a watch with more than ${MAX_PENDING_WATCH_CONVERSIONS} events waiting for conversion is ended`, async () => {
    const space = ns();
    await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space } });
    const watch = await openWatch(server.url, `${BASE}/v2/namespaces/${space}/widgets?watch=true`);
    wh.handler = () => undefined; // never answers
    try {
      for (let i = 0; i <= MAX_PENDING_WATCH_CONVERSIONS; i++) server.create({ ...widget('v1', `p${i}`, { size: i }), metadata: { name: `p${i}`, namespace: space } } as never);
      await watch.ended;
      expect(watch.all).toEqual([]);
      expect(server.openWatches(`${GROUP}/widgets`)).toBe(0);
    } finally {
      watch.close();
    }
  });
});
