import fc from 'fast-check';
import { from, of, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/kube-object.js';
import type { ListPage, WatchEvent } from '../../src/api/list-watcher.js';
import { listWatch } from '../../src/reflector/list-watch.js';
import type { ReflectorEvent } from '../../src/reflector/reflector-event.js';
import type { ReflectorStatus } from '../../src/reflector/reflector-status.js';
import { fakeListWatcher } from '../reflector/fake-list-watcher.js';
import { report } from './report.js';

/**
 * Fuzzing the reflector with odd transport answers (a server or proxy gone wrong): list pages
 * with odd items, versions and continue tokens, and watch events with odd types and objects. The property, in virtual time: the reflector never fails with a programming error
 * (TypeError, RangeError) — neither as a stream error nor as a recoverable error it reports — and
 * its stream only errors with its own typed errors.
 */

const odd: fc.Arbitrary<unknown> = fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer(), fc.string({ maxLength: 5 }), fc.boolean(), fc.constant([]), fc.constant({}));
const object: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ metadata: fc.record({ name: fc.constantFrom('a', 'b'), namespace: fc.constantFrom('ns'), resourceVersion: fc.oneof(fc.integer({ min: 1, max: 99 }).map(String), odd) }, { requiredKeys: ['name'] }) }) },
  { weight: 1, arbitrary: fc.oneof(odd, fc.record({ metadata: odd })) },
);
// Pages keep the ListWatcher contract's types (the HTTP transport's own fuzz test checks that it
// does); their items and the events' objects are anything a server could send.
const page: fc.Arbitrary<unknown> = fc.record(
  { items: fc.array(object, { maxLength: 4 }), resourceVersion: fc.oneof(fc.integer({ min: 1, max: 99 }).map(String), fc.constantFrom('', '0', 'abc', '-1')), continue: fc.oneof(fc.constant(undefined), fc.constant(''), fc.string({ maxLength: 4 })) },
  { requiredKeys: ['items', 'resourceVersion'] },
);
const watchEvent: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'), object }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('ERROR'), object: fc.oneof(odd, fc.record({ kind: fc.constant('Status'), code: fc.oneof(fc.constantFrom(410, 500, 429, 403), odd), reason: fc.oneof(fc.constantFrom('Expired', 'Gone'), odd) }, { requiredKeys: [] })) }) },
  { weight: 1, arbitrary: fc.oneof(odd, fc.record({ type: odd, object })) },
);

const bug = (e: unknown): boolean => e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError || e instanceof SyntaxError;

describe('fuzz: reflector input', () => {
  it('malformed pages and events never cause a programming error', () => {
    let runs = 0;
    let reported = 0;
    let emitted = 0;
    fc.assert(
      fc.property(fc.array(page, { minLength: 1, maxLength: 4 }), fc.array(fc.array(watchEvent, { maxLength: 6 }), { maxLength: 4 }), (pages, watches) => {
        runs++;
        const scheduler = new VirtualTimeScheduler();
        const lw = fakeListWatcher(scheduler, {
          lists: pages.map((p) => of(p as ListPage)),
          watches: watches.map((evs) => from(evs as WatchEvent[])),
        });
        const statuses: ReflectorStatus[] = [];
        const events: ReflectorEvent[] = [];
        let streamError: unknown;
        const sub = listWatch<KubeObject>(lw, { scheduler, random: () => 0.5, backoff: { initialMs: 10, maxMs: 100 }, status: { next: (s) => statuses.push(s) } }).subscribe({
          next: (e) => events.push(e),
          error: (e: unknown) => (streamError = e),
        });
        scheduler.maxFrames = 600_000;
        scheduler.flush();
        sub.unsubscribe();
        emitted += events.length;
        const errs = statuses.flatMap((s) => (s.type === 'error' ? [s.error] : []));
        reported += errs.length;
        for (const e of errs) expect(bug(e), `reported ${String(e)}`).toBe(false);
        if (streamError !== undefined) expect(bug(streamError), `stream error ${String(streamError)}`).toBe(false);
        for (const e of events) {
          if (e.type === 'replace') expect(Array.isArray(e.items)).toBe(true);
          if (e.type === 'replace' || e.type === 'bookmark') expect(typeof e.resourceVersion).toBe('string');
        }
      }),
      { numRuns: 500 },
    );
    report('reflector / malformed pages and watch events', runs, `${emitted} events emitted, ${reported} errors reported`);
  });
});
