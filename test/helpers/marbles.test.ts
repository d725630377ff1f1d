import { delay, map } from 'rxjs';
import { describe, it } from 'vitest';
import { marbles } from './marbles.js';

describe('marble helper', () => {
  it(
    'runs in virtual time',
    marbles((m) => {
      const source = m.cold('a-b|');
      const expected = '---x-(y|)';
      m.expect(source.pipe(delay(m.time('---|')), map((v) => (v === 'a' ? 'x' : 'y')))).toBeObservable(expected);
    }),
  );
});
