import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { objectRef } from '../../src/logging/index.js';
import { jsonLogger } from '../../src/logging/json-logger.js';

function capture(level?: 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = [];
  const scheduler = new VirtualTimeScheduler();
  const log = jsonLogger({ write: (l) => lines.push(l), scheduler, ...(level ? { level } : {}) });
  const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { log, lines, records };
}

describe('jsonLogger', () => {
  it('writes one JSON line per record with ts, level, msg and fields', () => {
    const { log, lines, records } = capture();
    log.info('reconciled', { controller: 'rs', object: 'default/web', reconcileID: 'abc' });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect(records()[0]).toEqual({
      ts: new Date(0).toISOString(),
      level: 'info',
      msg: 'reconciled',
      controller: 'rs',
      object: 'default/web',
      reconcileID: 'abc',
    });
  });

  it('child loggers carry their fields and can override them', () => {
    const { log, records } = capture();
    const c = log.child({ controller: 'rs' }).child({ object: 'ns/a', reconcileID: '1' });
    c.warn('slow', { reconcileID: '2' });
    expect(records()[0]).toMatchObject({ level: 'warn', controller: 'rs', object: 'ns/a', reconcileID: '2' });
  });

  it('drops records below the threshold level', () => {
    const { log, records } = capture('warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(records().map((r) => r['level'])).toEqual(['warn', 'error']);
  });

  it('never reaches the output with tokens, Authorization headers or secret fields', () => {
    const { log, lines } = capture('debug');
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJlLXZhbHVl';
    log.error(`request failed with Authorization: Bearer ${token}`, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      bearerToken: 'plain-token-value',
      config: { user: { password: 'hunter2', clientKeyData: 'LS0tPRIVATE' } },
      url: 'https://admin:s3cret@example.com/api',
      err: new Error(`401 for token ${token}`),
      obj: { kind: 'Secret', data: { key: 'c2VjcmV0' }, metadata: { name: 's' } },
      note: 'Basic dXNlcjpwYXNz',
    });
    const out = lines.join('');
    for (const leaked of [token, 'plain-token-value', 'hunter2', 'LS0tPRIVATE', 's3cret', 'c2VjcmV0', 'dXNlcjpwYXNz']) {
      expect(out).not.toContain(leaked);
    }
    const rec = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(rec['headers']).toEqual({ Authorization: '[REDACTED]', Accept: 'application/json' });
    expect(rec['url']).toBe('https://[REDACTED]@example.com/api');
    expect(rec['obj']).toMatchObject({ kind: 'Secret', data: '[REDACTED]', metadata: { name: 's' } });
    expect((rec['err'] as Record<string, unknown>)['message']).toBe('401 for token [REDACTED]');
  });

  it('survives cycles, bigints and a throwing writer', () => {
    const { log, records } = capture();
    const a: Record<string, unknown> = { n: 1n };
    a['self'] = a;
    log.info('cyclic', { a });
    expect(records()[0]?.['a']).toEqual({ n: '1', self: '[Circular]' });
    const bad = jsonLogger({ write: () => { throw new Error('disk full'); } });
    expect(() => bad.info('x')).not.toThrow();
  });

  it('objectRef formats namespaced and cluster-scoped objects', () => {
    expect(objectRef({ metadata: { namespace: 'ns', name: 'a' } })).toBe('ns/a');
    expect(objectRef({ metadata: { name: 'node1' } })).toBe('node1');
    expect(objectRef({ namespace: 'x', name: 'y' })).toBe('x/y');
  });
});

describe('reconcileLogger', () => {
  it('carries controller, object and a reconcileID', async () => {
    const { reconcileLogger } = await import('../../src/logging/reconcile-logger.js');
    const lines: string[] = [];
    const base = jsonLogger({ write: (l) => lines.push(l) });
    reconcileLogger(base, 'rs', { namespace: 'ns', name: 'web' }).info('start');
    reconcileLogger(base, 'rs', { metadata: { name: 'node1' } }, 'fixed-id').info('again');
    const [a, b] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(a).toMatchObject({ controller: 'rs', object: 'ns/web', msg: 'start' });
    expect(String(a?.['reconcileID'])).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatchObject({ object: 'node1', reconcileID: 'fixed-id' });
  });
});
