import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../src/workqueue/invalid-request-error.js';
import { checkRequestKey, parseRequestKey, requestKey } from '../../src/workqueue/request.js';
import { isTerminalError, TerminalError } from '../../src/workqueue/terminal-error.js';

describe('requests', () => {
  it('round-trips keys', () => {
    expect(requestKey({ namespace: 'ns', name: 'a' })).toBe('ns/a');
    expect(requestKey({ name: 'a' })).toBe('a');
    expect(requestKey({ namespace: '', name: 'a' })).toBe('a');
    expect(parseRequestKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(parseRequestKey('a')).toEqual({ name: 'a' });
  });

  it('rejects malformed keys and requests with InvalidRequestError', () => {
    for (const k of ['', '/a', 'a/', 'a/b/c']) expect(() => checkRequestKey(k)).toThrow(InvalidRequestError);
    expect(() => parseRequestKey(42 as unknown as string)).toThrow(InvalidRequestError);
    expect(() => requestKey({ name: '' })).toThrow(InvalidRequestError);
    expect(() => requestKey({ namespace: 'a/b', name: 'x' })).toThrow(InvalidRequestError);
    expect(() => requestKey(null as unknown as { name: string })).toThrow(InvalidRequestError);
  });
});

describe('TerminalError', () => {
  it('wraps, unwraps and is found in a cause chain', () => {
    const inner = new Error('bad spec');
    const t = new TerminalError(inner);
    expect(t.message).toBe('terminal error: bad spec');
    expect(t.cause).toBe(inner);
    expect(new TerminalError(undefined).message).toBe('nil terminal error');
    expect(isTerminalError(t)).toBe(true);
    expect(isTerminalError(new Error('outer', { cause: t }))).toBe(true);
    expect(isTerminalError(new AggregateError([new Error('x'), t]))).toBe(true);
    expect(isTerminalError(inner)).toBe(false);
    expect(isTerminalError('string')).toBe(false);
  });
});

describe('multi-cluster request keys', () => {
  it('prefix the cluster; key strings never carry one', () => {
    expect(requestKey({ cluster: 'east', namespace: 'a', name: 'b' })).toBe('east::a/b');
    expect(requestKey({ cluster: 'east', name: 'b' })).toBe('east::b');
    expect(requestKey({ cluster: '', name: 'b' })).toBe('b');
    expect(() => requestKey({ cluster: 'e/st', name: 'b' })).toThrow(/cluster/);
    expect(parseRequestKey('east::b')).toEqual({ name: 'east::b' });
  });
});
