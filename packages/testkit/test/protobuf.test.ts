/** The Kubernetes protobuf codec and the server's protobuf negotiation over raw HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeObject, decodeWatchEvent, encodeObject, encodeWatchFrame } from '../src/api-server/protobuf/codec.js';
import { startApiServer, type ApiServer } from '@rxkube/testkit';

const PB = 'application/vnd.kubernetes.protobuf';

describe('protobuf codec', () => {
  it('round-trips a pod with special types (Time, Quantity, IntOrString, inline structs, maps)', () => {
    const pod = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'x', namespace: 'd', labels: { a: 'b' }, creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: {
        containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: '1Gi' } },
          readinessProbe: { httpGet: { path: '/', port: 'http' } } }],
        volumes: [{ name: 'v', emptyDir: {} }, { name: 's', secret: { secretName: 'x', defaultMode: 420 } }],
      },
      status: {},
    };
    const body = encodeObject(pod);
    expect(body?.subarray(0, 4)).toEqual(Buffer.from('k8s\0', 'latin1'));
    expect(decodeObject(body ?? Buffer.alloc(0))).toEqual(pod);
  });

  it('keeps pointer zeros (replicas: 0) and drops omitempty zeros', () => {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 0, minReadySeconds: 0, paused: false, selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [] } } } };
    const back = decodeObject(encodeObject(d) ?? Buffer.alloc(0)) as { spec: Record<string, unknown> };
    expect(back.spec['replicas']).toBe(0);
    expect('minReadySeconds' in back.spec).toBe(false);
    expect('paused' in back.spec).toBe(false);
  });

  it('secret data stays base64, MicroTime keeps microseconds', () => {
    const s = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: Buffer.from('v').toString('base64') }, type: 'Opaque' };
    expect(decodeObject(encodeObject(s) ?? Buffer.alloc(0))).toEqual(s);
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me', renewTime: '2024-01-02T03:04:05.123456Z', leaseDurationSeconds: 15 } };
    expect(decodeObject(encodeObject(lease) ?? Buffer.alloc(0))).toEqual(lease);
  });

  it('has no message for custom kinds; refuses bytes without the envelope', () => {
    expect(encodeObject({ apiVersion: 'example.com/v1', kind: 'Widget' })).toBeUndefined();
    expect(() => decodeObject(Buffer.from('{}'))).toThrow(/k8s/);
    expect(encodeWatchFrame('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })?.readUInt32BE(0)).toBeGreaterThan(0);
  });
});

describe('protobuf over HTTP', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  async function call(method: string, path: string, body: Buffer | undefined, headers: Record<string, string>) {
    const res = await fetch(new URL(path, server.url), { method, headers, ...(body !== undefined ? { body } : {}) });
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it('creates from a protobuf body and answers in protobuf when asked', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb' }, data: { a: 'b' } };
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', encodeObject(cm), { 'Content-Type': PB, Accept: `${PB},application/json` });
    expect(res.status).toBe(201);
    expect(res.type).toBe(PB);
    const back = decodeObject(res.bytes) as { metadata: { uid: string }; data: unknown };
    expect(back.data).toEqual({ a: 'b' });
    expect(back.metadata.uid).toBe(server.get('v1', 'ConfigMap', 'pb', 'default')?.metadata?.uid);
    const list = await call('GET', '/api/v1/namespaces/default/configmaps', undefined, { Accept: PB });
    expect((decodeObject(list.bytes) as { kind: string; items: unknown[] }).kind).toBe('ConfigMapList');
    const missing = await call('GET', '/api/v1/namespaces/default/configmaps/nope', undefined, { Accept: PB });
    expect(missing.status).toBe(404);
    expect(decodeObject(missing.bytes)).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound' });
    const json = await call('GET', '/api/v1/namespaces/default/configmaps/pb', undefined, { Accept: 'application/json' });
    expect(json.type).toBe('application/json');
  });

  it('a malformed protobuf body is a 400', async () => {
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', Buffer.from('k8s\0\xff\xff', 'latin1'), { 'Content-Type': PB });
    expect(res.status).toBe(400);
  });
});

type WatchEvent = { type: string; object: Record<string, unknown> };

/** Reads length-prefixed protobuf watch frames into `events` until `enough()` or the stream ends. */
async function readFrames(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, events: WatchEvent[], enough: () => boolean): Promise<void> {
  let buf = Buffer.alloc(0);
  while (!enough() && reader !== undefined) {
    const { value, done } = await reader.read();
    if (done) break;
    buf = Buffer.concat([buf, Buffer.from(value)]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      const n = buf.readUInt32BE(0);
      events.push(decodeWatchEvent(buf.subarray(4, 4 + n)));
      buf = buf.subarray(4 + n);
    }
  }
}

describe('protobuf watch streams', () => {
  it('a protobuf client gets length-prefixed WatchEvent frames; custom resources and Tables stay JSON', async () => {
    const server = await startApiServer();
    try {
      server.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1', namespace: 'default' }, data: { a: '1' } }]);
      const ac = new AbortController();
      const res = await fetch(new URL('/api/v1/namespaces/default/configmaps?watch=1', server.url), { headers: { Accept: `${PB}, application/json` }, signal: ac.signal });
      expect(res.headers.get('content-type')).toBe(`${PB};stream=watch`);
      const reader = res.body?.getReader();
      const events: WatchEvent[] = [];
      setTimeout(() => server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w2', namespace: 'default' } }), 50);
      await readFrames(reader, events, () => events.length >= 2);
      ac.abort();
      expect(events.map((e) => [e.type, e.object['kind'], (e.object['metadata'] as { name: string }).name])).toEqual([['ADDED', 'ConfigMap', 'w1'], ['ADDED', 'ConfigMap', 'w2']]);
      const table = await fetch(new URL('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1', server.url), { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      expect(table.headers.get('content-type')).toBe('application/json');
      await table.text();
    } finally {
      await server.close();
    }
  });

  it('Lease events keep MicroTime to the microsecond; BOOKMARK frames carry the kind and the resourceVersion (what a client-go reflector decodes)', async () => {
    const server = await startApiServer({ bookmarkIntervalMs: 50 });
    try {
      const ac = new AbortController();
      const res = await fetch(new URL('/apis/coordination.k8s.io/v1/namespaces/default/leases?watch=1&allowWatchBookmarks=true', server.url), { headers: { Accept: `${PB}, application/json` }, signal: ac.signal });
      expect(res.headers.get('content-type')).toBe(`${PB};stream=watch`);
      const renewTime = '2024-01-02T03:04:05.123456Z';
      server.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: renewTime, renewTime } });
      // A change this watch does not get moves the resourceVersion past it: the next tick bookmarks.
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'default' } });
      const reader = res.body?.getReader();
      const events: WatchEvent[] = [];
      await readFrames(reader, events, () => events.some((e) => e.type === 'BOOKMARK'));
      ac.abort();
      const [added, bookmark] = events;
      expect(added?.type).toBe('ADDED');
      expect(added?.object['spec']).toEqual({ holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: renewTime, renewTime });
      expect(bookmark?.type).toBe('BOOKMARK');
      expect(bookmark?.object).toMatchObject({ kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { resourceVersion: String(server.resourceVersion) } });
    } finally {
      await server.close();
    }
  });
});
