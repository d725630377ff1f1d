/**
 * rxjs-marbles wired to vitest's `expect`. rxjs-marbles has no vitest entry point; its root
 * `configure` accepts the assertion functions, and `run: true` makes every marble test run
 * inside `TestScheduler.run`, so `delay`, `timer` and friends use virtual time.
 */
import { configure } from 'rxjs-marbles';
import { expect } from 'vitest';

export const { marbles } = configure({
  assert: (value: unknown, message: string) => expect(value, message).toBeTruthy(),
  assertDeepEqual: (actual: unknown, expected: unknown) => expect(actual).toEqual(expected),
  frameworkMatcher: false,
  run: true,
});
