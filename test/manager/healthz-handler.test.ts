import { describe, expect, it } from 'vitest';
import type { HealthCheck } from '../../src/manager/healthz-handler.js';
import { serveHealthz } from '../../src/manager/healthz-handler.js';

const ok: HealthCheck = () => undefined;
const bad: HealthCheck = () => {
  throw new Error('database unreachable');
};
const slowBad: HealthCheck = () => Promise.reject(new Error('timeout'));

const q = (s = '') => new URLSearchParams(s);
const checks = (entries: Record<string, HealthCheck>) => new Map(Object.entries(entries));

describe('serveHealthz (CR-15)', () => {
  it('answers 200 ok when every check passes', async () => {
    expect(await serveHealthz(checks({ a: ok, b: ok }), '', q())).toEqual({ status: 200, body: 'ok' });
    expect(await serveHealthz(checks({ a: ok }), '/', q())).toEqual({ status: 200, body: 'ok' });
  });

  it('answers 500 with one sorted line per check when any fails, withholding reasons', async () => {
    const res = await serveHealthz(checks({ zeta: ok, alpha: bad, mid: slowBad }), '', q());
    expect(res.status).toBe(500);
    expect(res.body).toBe('[-]alpha failed: reason withheld\n[-]mid failed: reason withheld\n[+]zeta ok\nhealthz check failed\n');
  });

  it('lists checks on success with ?verbose', async () => {
    const res = await serveHealthz(checks({ b: ok, a: ok }), '', q('verbose'));
    expect(res).toEqual({ status: 200, body: '[+]a ok\n[+]b ok\nhealthz check passed\n' });
  });

  it('skips excluded checks and warns about unknown excludes', async () => {
    const res = await serveHealthz(checks({ a: bad, b: ok }), '', q('exclude=a&exclude=nope&exclude=also'));
    expect(res).toEqual({ status: 200, body: 'ok' });
    const verbose = await serveHealthz(checks({ a: bad, b: ok }), '', q('exclude=a&exclude=nope&exclude=also&verbose'));
    expect(verbose.body).toBe(
      '[+]a excluded: ok\n[+]b ok\nwarn: some health checks cannot be excluded: no matches for "also","nope"\nhealthz check passed\n',
    );
  });

  it('reports a built-in ping check when none are registered, served at /ping too', async () => {
    expect(await serveHealthz(new Map(), '', q('verbose'))).toEqual({ status: 200, body: '[+]ping ok\nhealthz check passed\n' });
    expect(await serveHealthz(new Map(), '/ping', q())).toEqual({ status: 200, body: 'ok' });
    expect((await serveHealthz(checks({ a: ok }), '/ping', q())).status).toBe(404);
  });

  it('runs one check at /<name> and answers 404 for unknown names', async () => {
    expect(await serveHealthz(checks({ a: ok, b: bad }), '/a', q())).toEqual({ status: 200, body: 'ok' });
    expect(await serveHealthz(checks({ a: ok, b: bad }), '/b/', q())).toEqual({
      status: 500,
      body: 'internal server error: database unreachable\n',
    });
    expect((await serveHealthz(checks({ a: ok }), '/zzz', q())).status).toBe(404);
  });
});
