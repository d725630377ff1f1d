import { finalize, NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { whileLeading } from '../../src/leader-election/while-leading.js';
import { marbles } from '../helpers/marbles.js';

describe('whileLeading', () => {
  it(
    'subscribes to work while leading, unsubscribes at the instant leadership is lost, restarts on a new term',
    marbles((m) => {
      const leading = m.hot('f---t------f----t-----', { f: false, t: true });
      const work = m.cold('  a-b-c-d-e-f');
      const unsub = '        ^--------------------!';
      const expected = '     ----a-b-c-d-----a-b-c';
      m.expect(whileLeading(leading, () => work), unsub).toBeObservable(expected);
      m.expect(work).toHaveSubscriptions(['----^------!', '----------------^----!']);
    }),
  );

  it(
    'ignores repeated true (no restart of the work) and runs nothing before the first true',
    marbles((m) => {
      const leading = m.hot('f-f-t-t-t---', { f: false, t: true });
      const work = m.cold('a---b---c---');
      m.expect(whileLeading(leading, () => work), '^----------!').toBeObservable('----a---b---');
      m.expect(work).toHaveSubscriptions(['----^------!']);
    }),
  );

  it('tears the work down synchronously with the false emission', () => {
    const log: string[] = [];
    const leading$ = new Subject<boolean>();
    const sub = whileLeading(leading$, () => NEVER.pipe(finalize(() => log.push('work stopped')))).subscribe();
    leading$.next(true);
    log.push('before loss');
    leading$.next(false);
    log.push('after loss');
    expect(log).toEqual(['before loss', 'work stopped', 'after loss']);
    sub.unsubscribe();
  });
});
