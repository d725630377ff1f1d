/** docs/semantics.md §8.5 CR-15 (healthz/readyz), over real HTTP against the manager's probe server. */
import { describe, expect, it } from 'vitest';
import { manager } from '../../src/manager/manager.js';
import type { Manager } from '../../src/manager/manager.js';

async function withProbes(setup: (m: Manager) => void, body: (get: (p: string) => Promise<[number, string]>) => Promise<void>) {
  // controller-runtime withholds the reasons of failed checks; rxkube shows them unless asked not to.
  const mgr = manager({ health: { host: '127.0.0.1', port: 0, cacheSyncCheck: false, informerFailureCheck: false, withholdReasons: true } });
  setup(mgr);
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  const { port } = await mgr.healthAddress();
  try {
    await body(async (p) => {
      const res = await fetch(`http://127.0.0.1:${port}${p}`);
      return [res.status, await res.text()];
    });
  } finally {
    ac.abort();
    await done;
  }
}

const fail = (reason: string) => () => {
  throw new Error(reason);
};

describe('CR-15 healthz/readyz', () => {
  it('aggregates, lists on failure or ?verbose, excludes, single checks, ping, 404, and refuses checks after start', async () => {
    let mgrRef: Manager | undefined;
    await withProbes(
      (m) => {
        mgrRef = m;
        m.addHealthzCheck('b-ok', () => undefined);
        m.addHealthzCheck('a-bad', fail('disk full'));
        m.addReadyzCheck('r1', () => undefined);
      },
      async (get) => {
        expect(await get('/healthz')).toEqual([500, '[-]a-bad failed: reason withheld\n[+]b-ok ok\nhealthz check failed\n']);
        expect(await get('/healthz?exclude=a-bad')).toEqual([200, 'ok']);
        expect(await get('/healthz?exclude=a-bad&exclude=ghost&verbose')).toEqual([
          200,
          '[+]a-bad excluded: ok\n[+]b-ok ok\nwarn: some health checks cannot be excluded: no matches for "ghost"\nhealthz check passed\n',
        ]);
        expect(await get('/healthz?exclude=ghost')).toEqual([
          500,
          '[-]a-bad failed: reason withheld\n[+]b-ok ok\nwarn: some health checks cannot be excluded: no matches for "ghost"\nhealthz check failed\n',
        ]);
        expect(await get('/readyz')).toEqual([200, 'ok']);
        expect(await get('/readyz?verbose')).toEqual([200, '[+]r1 ok\nhealthz check passed\n']);
        expect(await get('/healthz/b-ok')).toEqual([200, 'ok']);
        expect(await get('/healthz/a-bad')).toEqual([500, 'internal server error: disk full\n']);
        expect((await get('/healthz/nope'))[0]).toBe(404);
        expect((await get('/healthz/ping'))[0]).toBe(404);
        expect(() => mgrRef?.addHealthzCheck('late', () => undefined)).toThrow(
          'unable to add new checker because healthz endpoint has already been created',
        );
      },
    );
  });

  it('reports the built-in ping check when no checks are registered', async () => {
    await withProbes(
      () => undefined,
      async (get) => {
        expect(await get('/healthz')).toEqual([200, 'ok']);
        expect(await get('/healthz?verbose')).toEqual([200, '[+]ping ok\nhealthz check passed\n']);
        expect(await get('/healthz/ping')).toEqual([200, 'ok']);
        expect(await get('/readyz/ping')).toEqual([200, 'ok']);
      },
    );
  });
});
