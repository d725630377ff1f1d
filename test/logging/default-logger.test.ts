import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defaultLogger, parseLogEnv } from '../../src/logging/default-logger.js';
import { textLogger } from '../../src/logging/text-logger.js';

const scheduler = new VirtualTimeScheduler();

describe('textLogger', () => {
  it('writes time, level, message and key=value fields, quoting values with spaces', () => {
    const lines: string[] = [];
    const log = textLogger({ write: (l) => lines.push(l), scheduler }).child({ controller: 'rs' });
    log.info('caches synced', { informers: 2, objects: 14 });
    log.error('Reconciler error', { object: 'default/web', err: new Error('409 Conflict: the object has been modified'), extra: { a: 1 } });
    log.debug('hidden');
    expect(lines).toEqual([
      '00:00:00.000 INFO  caches synced controller=rs informers=2 objects=14\n',
      '00:00:00.000 ERROR Reconciler error controller=rs object=default/web err="409 Conflict: the object has been modified" extra="{\\"a\\":1}"\n',
    ]);
  });

  it('redacts secrets and includes causes of errors', () => {
    const lines: string[] = [];
    const log = textLogger({ write: (l) => lines.push(l), scheduler });
    log.warn('failed', { token: 'abc', err: new Error('outer', { cause: new Error('inner') }), url: 'https://u:p@h/x' });
    expect(lines[0]).toBe('00:00:00.000 WARN  failed token=[REDACTED] err="outer: inner" url=https://[REDACTED]@h/x\n');
  });

  it('colours the level when asked', () => {
    const lines: string[] = [];
    textLogger({ write: (l) => lines.push(l), scheduler, color: true }).warn('x');
    expect(lines[0]).toBe('00:00:00.000 \x1b[33mWARN \x1b[0m x\n');
  });
});

describe('defaultLogger', () => {
  const capture = (options: Parameters<typeof defaultLogger>[0]) => {
    const lines: string[] = [];
    const log = defaultLogger({ write: (l) => lines.push(l), scheduler, ...options });
    log.debug('d');
    log.info('i', { a: 1 });
    log.warn('w');
    return lines;
  };

  it('text on a terminal, JSON otherwise, at info', () => {
    expect(capture({ env: {}, isTTY: true })).toEqual(['00:00:00.000 \x1b[36mINFO \x1b[0m i a=1\n', '00:00:00.000 \x1b[33mWARN \x1b[0m w\n']);
    expect(capture({ env: {}, isTTY: false }).map((l) => JSON.parse(l) as unknown)).toEqual([
      { ts: '1970-01-01T00:00:00.000Z', level: 'info', msg: 'i', a: 1 },
      { ts: '1970-01-01T00:00:00.000Z', level: 'warn', msg: 'w' },
    ]);
  });

  it('RXKUBE_LOG sets the level and the format; the options win', () => {
    expect(capture({ env: { RXKUBE_LOG: 'warn' }, isTTY: false })).toHaveLength(1);
    expect(capture({ env: { RXKUBE_LOG: 'debug,text' }, isTTY: false })[0]).toBe('00:00:00.000 DEBUG d\n');
    expect(capture({ env: { RXKUBE_LOG: 'off' }, isTTY: false })).toEqual([]);
    expect(capture({ env: { RXKUBE_LOG: 'off' }, level: 'info', format: 'text', isTTY: false })).toEqual(['00:00:00.000 INFO  i a=1\n', '00:00:00.000 WARN  w\n']);
  });

  it('parses RXKUBE_LOG leniently', () => {
    expect(parseLogEnv('DEBUG, json')).toEqual({ level: 'debug', format: 'json' });
    expect(parseLogEnv('verbose')).toEqual({});
    expect(parseLogEnv(undefined)).toEqual({});
  });
});
