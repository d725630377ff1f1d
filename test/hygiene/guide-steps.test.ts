/**
 * The console-block syntax the executed guide is written in (test/e2e/helpers/guide-steps.ts):
 * steps and their lines, the wildcards, Ctrl-C, sessions, and a mismatch naming the guide's line.
 * docs/guide itself is parsed too, so a malformed block fails here, without a cluster.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchOutput, mismatchMessage, normalizeOutput, parseGuide } from '../e2e/helpers/guide-steps.js';

const guide = [
  '# Title', // 1
  '', // 2
  '```console timeout=5', // 3
  '$ echo one \\', // 4
  '    two', // 5
  'one two', // 6
  '$ cat <<EOF', // 7
  'a', // 8
  'EOF', // 9
  'a', // 10
  '```', // 11
  '```sh', // 12
  '$ not a step', // 13
  '```', // 14
  '```console session=op', // 15
  '$ serve', // 16
  'listening on …', // 17
  '```', // 18
  '```console session=op', // 19
  '...', // 20
  'ready', // 21
  '^C', // 22
  'stopped', // 23
  '```', // 24
  '```console exit=1', // 25
  '$ false', // 26
  '```', // 27
].join('\n');

describe('guide steps', () => {
  const steps = parseGuide('g.md', guide);

  it('reads commands (continued, here-documents), their output lines and the block attributes', () => {
    expect(steps.map((s) => [s.line, s.command, s.session, s.exit])).toEqual([
      [4, 'echo one two', 'main', 0],
      [7, 'cat <<EOF\na\nEOF', 'main', 0],
      [16, 'serve', 'op', 0],
      [19, undefined, 'op', 0],
      [26, 'false', 'main', 1],
    ]);
    expect(steps[0]?.expected).toEqual([{ text: 'one two', line: 6 }]);
    expect(steps[0]?.timeoutMs).toBe(5_000);
    expect(steps[1]?.expected).toEqual([{ text: 'a', line: 10 }]);
    expect(steps[3]?.expected.map((l) => l.text)).toEqual(['...', 'ready']);
    expect(steps[3]?.afterInterrupt).toEqual([{ text: 'stopped', line: 23 }]);
    expect(steps[0]?.afterInterrupt).toBeUndefined();
  });

  it('refuses malformed blocks naming the line', () => {
    expect(() => parseGuide('g.md', '```console\nout\n```')).toThrow('g.md:2: output before any');
    expect(() => parseGuide('g.md', '```console foo=1\n$ x\n```')).toThrow("g.md:1: unknown console block attribute 'foo=1'");
    expect(() => parseGuide('g.md', '```console\n$ cat <<EOF\nx\n```')).toThrow("g.md:2: here-document 'EOF' not terminated");
    expect(() => parseGuide('g.md', '```console\n$ x\n')).toThrow('g.md:1: code block not closed');
  });

  it('matches literally, with `...` for any lines and `…` for any text on a line', () => {
    const lines = (...texts: string[]) => texts.map((text, i) => ({ text, line: i + 1 }));
    expect(matchOutput('a\nb\n', lines('a', 'b'), true)).toEqual({ ok: true, length: 4 });
    expect(matchOutput('a\nx\ny\nb\n', lines('a', '...', 'b'), true).ok).toBe(true);
    expect(matchOutput('a\nb\n', lines('a', '...', 'b'), true).ok).toBe(true);
    expect(matchOutput('port 8080 up\n', lines('port … up'), true).ok).toBe(true);
    // `…` stays on its line.
    expect(matchOutput('port 8080\nup\n', lines('port … up'), true).ok).toBe(false);
    // Regular-expression characters are literal.
    expect(matchOutput('a.b\n', lines('a.b'), true).ok).toBe(true);
    expect(matchOutput('axb\n', lines('a.b'), true).ok).toBe(false);
    // A prefix: more output may follow while the command runs.
    expect(matchOutput('a\nb\nc\n', lines('a', 'b'), false)).toEqual({ ok: true, length: 4 });
    expect(matchOutput('a\nb\nc\n', lines('a', 'b'), true)).toEqual({ ok: false, line: undefined });
  });

  it('names the first expected line that does not match', () => {
    const step = steps[0];
    if (step === undefined) throw new Error('no step');
    const expected = [
      { text: 'a', line: 10 },
      { text: '...', line: 11 },
      { text: 'c', line: 12 },
      { text: 'd', line: 13 },
    ];
    const result = matchOutput('a\nb\nc\nD\n', expected, true);
    expect(result).toEqual({ ok: false, line: { text: 'd', line: 13 } });
    if (result.ok) return;
    expect(mismatchMessage(step, result, 'a\nb\nc\nD\n')).toMatch(/^g\.md:13: `echo one two`: output does not match the guide's line "d"\n--- it printed:\na\nb\nc\nD\n---$/);
  });

  it('normalizes terminal output: colours, carriage returns, trailing blanks', () => {
    expect(normalizeOutput('\u001b[32mok\u001b[39m  \r\nnext\r\n\n\n')).toBe('ok\nnext\n');
    expect(normalizeOutput('')).toBe('');
  });

  it('parses docs/guide (the executed guide)', () => {
    const dir = join(import.meta.dirname, '..', '..', 'docs', 'guide');
    const files = readdirSync(dir).filter((f) => /^\d.*\.md$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    const all = files.flatMap((f) => parseGuide(f, readFileSync(join(dir, f), 'utf8')));
    expect(all.filter((s) => s.command !== undefined).length).toBeGreaterThan(20);
  });
});
