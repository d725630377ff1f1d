import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom, Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import { sharedInformer } from '../../src/informer/shared-informer.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import { UnusableWatchEventError } from '../../src/reflector/reflector-errors.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { fakeListWatcher } from '../reflector/fake-list-watcher.js';
import type { WatchEvent } from '../../src/api/list-watcher.js';
import { apiErrorFromResponse, parseRetryAfter } from '../../src/client/api-error-from-response.js';
import { isTooLargeResourceVersion, isGone } from '../../src/client/api-error.js';
import { watchEventError } from '../../src/client/watch-event-error.js';
import { KubeClient } from '../../src/client/kube-client.js';
import { ResponseDecodeError } from '../../src/client/response-decode-error.js';
import { COMMON_FIELDS, parseFieldSelector } from '../../packages/testkit/src/api-server/field-selector.js';
import { startApiServer } from '@rxkube/testkit';
import { labelMatcher } from '../../src/informer/label-selector.js';

/** Counterexamples the fuzzers found, kept as plain regression tests. */
describe('fuzz regressions: Status decoding', () => {
  const nowMs = 0;

  it('a Status whose details.causes is not an array does not crash isTooLargeResourceVersion', () => {
    const e = apiErrorFromResponse(504, '{"kind":"Status","details":{"causes":false}}', {}, { nowMs });
    expect(isTooLargeResourceVersion(e)).toBe(false);
    const e2 = apiErrorFromResponse(504, '{"kind":"Status","details":{"causes":[null, 3, {"message": 7}, {"reason":"ResourceVersionTooLarge"}]}}', {}, { nowMs });
    expect(isTooLargeResourceVersion(e2)).toBe(true);
    expect(e2.status.details?.causes).toEqual([{}, { reason: 'ResourceVersionTooLarge' }]);
  });

  it('wrong-typed Status fields are dropped, not passed on as typed fields', () => {
    const e = apiErrorFromResponse(503, '{"kind":"Status","message":[],"reason":5,"code":"410","details":{"retryAfterSeconds":null}}', {}, { nowMs, secrets: ['abcd'] });
    expect(e.statusCode).toBe(503);
    expect(e.reason).toBe('');
    expect(e.status.message).toBeUndefined();
    expect(e.retryAfterSeconds).toBeUndefined();
    expect(isGone(e)).toBe(false);
  });

  it('a watch ERROR object with a wrong-typed message or code gives a well-typed ApiError', () => {
    const e = watchEventError({ type: 'ERROR', object: { kind: 0, message: [], code: '410' } } as unknown as WatchEvent);
    expect(e?.statusCode).toBe(500);
    expect(e?.status.message).toBeUndefined();
    expect(typeof e?.message).toBe('string');
    const gone = watchEventError({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } });
    expect(isGone(gone)).toBe(true);
    expect(gone?.status.message).toBe('too old');
  });

  it('a watch ERROR event without an object (null, missing, a string) gives a 500 ApiError, not a TypeError', () => {
    // Found in CI by test/fuzz/reflector-input.test.ts: the TypeError surfaced as an unhandled error.
    for (const object of [undefined, null, 'oops', 7, []]) {
      const e = watchEventError({ type: 'ERROR', object } as unknown as WatchEvent);
      expect(e?.statusCode, String(object)).toBe(500);
      expect(e?.reason).toBe('');
    }
  });

  it('a Retry-After of more digits than a safe integer is ignored', () => {
    expect(parseRetryAfter('99999999999999999999999', 0)).toBeUndefined();
    expect(parseRetryAfter('120', 0)).toBe(120);
  });
});

describe('fuzz regressions: embedded server field selectors', () => {
  it('an escaped backslash before a comma ends the term (the comma separates)', () => {
    const sel = parseFieldSelector('metadata.name=a\\\\,metadata.namespace=b', COMMON_FIELDS);
    expect(sel.terms).toEqual([
      { field: 'metadata.name', op: '=', value: 'a\\' },
      { field: 'metadata.namespace', op: '=', value: 'b' },
    ]);
    expect(parseFieldSelector('metadata.name=a\\,b', COMMON_FIELDS).terms).toEqual([{ field: 'metadata.name', op: '=', value: 'a,b' }]);
  });

  it('names of Object.prototype members are not field labels (400, not a 500 at match time)', async () => {
    for (const f of ['hasOwnProperty', 'constructor', '__proto__', 'toString']) {
      expect(() => parseFieldSelector(`${f}=x`, COMMON_FIELDS)).toThrow(/field label not supported/);
    }
    const server = await startApiServer();
    try {
      server.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default' } });
      const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?fieldSelector=${encodeURIComponent('hasOwnProperty=x')}`);
      expect(res.status).toBe(400);
      await res.text();
    } finally {
      await server.close();
    }
  });
});

describe('fuzz regressions: informer lister label matching', () => {
  it('a label key named like an Object.prototype member is matched on own labels only', () => {
    expect(labelMatcher('constructor')({})).toBe(false);
    expect(labelMatcher('!toString')({})).toBe(true);
    expect(labelMatcher('hasOwnProperty in (x)')({})).toBe(false);
    expect(labelMatcher('valueOf notin (x)')({})).toBe(true);
    expect(labelMatcher('constructor')({ constructor: 'x' })).toBe(true);
    expect(labelMatcher({ constructor: 'x' })({})).toBe(false);
  });
});

describe('fuzz regressions: informer input', () => {
  it('an event whose object is null is reported, and the informer keeps running', () => {
    const src = new Subject<ReflectorEvent>();
    const informer = sharedInformer(src);
    const errors: Error[] = [];
    informer.errors$.subscribe((e) => errors.push(e));
    let streamError: unknown;
    informer.events$.subscribe({ error: (e: unknown) => (streamError = e) });
    src.next({ type: 'added', object: null as unknown as KubeObject });
    src.next({ type: 'modified', object: { metadata: { name: 'n', resourceVersion: 5 } } as unknown as KubeObject });
    src.next({ type: 'replace', items: [{ metadata: { name: 'a', resourceVersion: '3' } }], resourceVersion: '3' });
    expect(streamError).toBeUndefined();
    expect(informer.isRunning).toBe(true);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.name !== 'InformerSourceError')).toBe(true);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.store.list().map((o) => o.metadata?.name)).toEqual(['a']);
    expect(informer.lastSyncResourceVersion).toBe('3');
  });
});

describe('fuzz regressions: reflector', () => {
  it('a watch event with a non-string resourceVersion is skipped as unusable and never becomes the resume version', () => {
    const scheduler = new VirtualTimeScheduler();
    const lw = fakeListWatcher(scheduler, {
      lists: [{ page: { items: [], resourceVersion: '1' } }],
      watches: [{ events: [[1, { type: 'BOOKMARK', object: { metadata: { resourceVersion: {} } } } as unknown as WatchEvent]], closeAt: 2 }],
    });
    const statuses: ReflectorStatus[] = [];
    const events: ReflectorEvent[] = [];
    const sub = listWatch(lw, { scheduler, random: () => 0.5, streamingList: false, status: { next: (s) => statuses.push(s) } }).subscribe((e) => events.push(e));
    scheduler.maxFrames = 10_000;
    scheduler.flush();
    sub.unsubscribe();
    expect(events.map((e) => e.type)).toEqual(['replace']);
    expect(statuses.some((s) => s.type === 'error' && s.error instanceof UnusableWatchEventError && s.action === 'skipEvent')).toBe(true);
    expect(lw.watchCalls.map((c) => c.options.resourceVersion)).toEqual(['1', '1']);
  });
  it('a watch event that is null or of an unknown type is skipped as unusable; the watch goes on', () => {
    // Found in CI by test/fuzz/reflector-input.test.ts: reading `event.type` of null threw inside
    // the transport's subscriber and surfaced as an unhandled error.
    const scheduler = new VirtualTimeScheduler();
    const cm = (name: string, rv: string) => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });
    const lw = fakeListWatcher(scheduler, {
      lists: [{ page: { items: [], resourceVersion: '1' } }],
      watches: [
        {
          events: [
            [1, null as unknown as WatchEvent],
            [2, { type: 'FOO', object: cm('x', '2') } as unknown as WatchEvent],
            [3, { type: 'ADDED', object: cm('a', '3') }],
          ],
          closeAt: 4,
        },
      ],
    });
    const statuses: ReflectorStatus[] = [];
    const events: ReflectorEvent[] = [];
    const sub = listWatch(lw, { scheduler, random: () => 0.5, streamingList: false, status: { next: (s) => statuses.push(s) } }).subscribe((e) => events.push(e));
    scheduler.maxFrames = 10_000;
    scheduler.flush();
    sub.unsubscribe();
    expect(events.map((e) => e.type)).toEqual(['replace', 'added']);
    expect(statuses.filter((s) => s.type === 'error' && s.error instanceof UnusableWatchEventError && s.action === 'skipEvent')).toHaveLength(2);
    expect(lw.watchCalls.map((c) => c.options.resourceVersion)).toEqual(['1', '3']);
  });
});

describe('fuzz regressions: HTTP transport', () => {
  it('a 200 list body that is not JSON, or has no items array, is a ResponseDecodeError; odd metadata fields are dropped', async () => {
    let body = ':';
    const raw = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const client = KubeClient.fromKubeConfig(kc);
    const lw = client.listWatcher({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }, { namespace: 'ns' });
    try {
      await expect(firstValueFrom(lw.list({}))).rejects.toBeInstanceOf(ResponseDecodeError);
      body = '{"items": 5}';
      await expect(firstValueFrom(lw.list({}))).rejects.toBeInstanceOf(ResponseDecodeError);
      body = '{"items": [], "metadata": {"resourceVersion": 7, "continue": {}, "remainingItemCount": "3"}}';
      expect(await firstValueFrom(lw.list({}))).toEqual({ items: [], resourceVersion: '' });
      body = '{"metadata": {"resourceVersion": "9"}}';
      expect(await firstValueFrom(lw.list({}))).toEqual({ items: [], resourceVersion: '9' });
    } finally {
      client.close();
      await new Promise((r) => raw.close(r));
    }
  });
});
