/**
 * A marble test of the consumer's controller under vitest, with rxjs-marbles and rxkube/testing's
 * `fakeSource`: events go in as a marble diagram, reconcile outcomes come out as one, in virtual
 * time. Type-checked with the rest (a second copy of rxjs inside rxkube would fail it).
 */
import { map, timer } from 'rxjs';
import { configure } from 'rxjs-marbles';
import { describe, expect, it } from 'vitest';
import type { ReconcileOutcome } from 'rxkube';
import { added, fakeSource, updated } from 'rxkube/testing';
import { CONFIG_MAPS, configMap, expiryController } from './expiry-controller.js';

const { marbles } = configure({
  assert: (value: unknown, message: string) => expect(value, message).toBeTruthy(),
  assertDeepEqual: (actual: unknown, expected: unknown) => expect(actual).toEqual(expected),
  frameworkMatcher: false,
  run: true,
});

const outcome = (o: ReconcileOutcome): string => `${o.request.name} ${o.kind}${o.requeueAfter === undefined ? '' : ` ${o.requeueAfter}`}`;

describe('expiry controller in virtual time', () => {
  it(
    'wakes at each expiry and deletes then; a later expiry moves the wake-up',
    marbles((m) => {
      const deletes: string[] = [];
      const configMaps = fakeSource({
        resource: CONFIG_MAPS,
        initial: [configMap('a', 30), configMap('b')],
        events$: m.hot('-----c--------------u', {
          c: added(configMap('c', 10)),
          u: updated(configMap('a', 30), configMap('a', 50, '2')),
        }),
      });
      const ctrl = expiryController({
        name: 'expiry-marbles',
        configMaps,
        scheduler: m.scheduler,
        remove: (req) => timer(2).pipe(map(() => deletes.push(`${req.name}@${m.scheduler.now()}`))),
      });
      m.expect(ctrl.run().pipe(map(outcome))).toBeObservable('(ab)-c------d-------e-------------------------------f', {
        a: 'a requeue_after 30',
        b: 'b success',
        c: 'c requeue_after 5',
        d: 'c success',
        e: 'a requeue_after 30',
        f: 'a success',
      });
      m.scheduler.flush();
      expect(deletes).toEqual(['c@12', 'a@52']);
    }),
  );
});
