/**
 * The steps of a guide written in markdown, for a test that runs them: each ```console block
 * holds `$ command` lines (continued by a trailing backslash or a here-document), each followed
 * by the output it prints. Output lines match literally (trailing blanks ignored) except:
 *
 * - a line `...` stands for any number of lines (none included);
 * - `…` inside a line stands for any text on that line (a port, a duration, a token);
 * - a line `^C` is where the reader presses Ctrl-C: the command runs until the output above it is
 *   there, gets SIGINT, and what follows is what it prints while it stops.
 *
 * The block's info string may carry `session=NAME` (a second terminal: the command keeps running
 * while the next blocks run; a later block of the same session without a `$` line shows what that
 * terminal printed since), `exit=N` (the exit status its commands end with; default 0) and
 * `timeout=SECONDS` (how long each of its steps may take; default 120). Other fenced blocks are
 * prose. Parsing and matching only: test/e2e/scaffold-deploy.test.ts runs the steps.
 */

/** One expected output line and where the guide has it. */
export interface ExpectedLine {
  readonly text: string;
  /** 1-based line in the guide file. */
  readonly line: number;
}

/** A command of the guide (or, with `command` undefined, more output of a session's running command). */
export interface GuideStep {
  /** The guide file, as given to {@link parseGuide}. */
  readonly file: string;
  /** 1-based line of the `$` line (of the block's first line for a continuation). */
  readonly line: number;
  /** The shell command; undefined for a continuation block. */
  readonly command: string | undefined;
  /** `main`, or the block's `session=` name. */
  readonly session: string;
  /** The exit status expected when the command ends by itself. */
  readonly exit: number;
  readonly timeoutMs: number;
  /** Output before the `^C` line, or all of it when there is none. */
  readonly expected: readonly ExpectedLine[];
  /** Output after the `^C` line; undefined when the reader does not press Ctrl-C. */
  readonly afterInterrupt: readonly ExpectedLine[] | undefined;
}

const FENCE = /^(`{3,})\s*(\S*)(.*)$/;
const DEFAULT_TIMEOUT_S = 120;

/** The steps of one guide file, in order. Throws naming the file and line of a malformed block. */
export function parseGuide(file: string, markdown: string): GuideStep[] {
  const lines = markdown.split('\n');
  const steps: GuideStep[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) continue;
    const fence = open[1] ?? '```';
    const close = lines.findIndex((l, j) => j > i && l.trimEnd() === fence);
    if (close < 0) throw new Error(`${file}:${i + 1}: code block not closed`);
    if (open[2] === 'console') steps.push(...parseBlock(file, i + 1, attributes(file, i + 1, open[3] ?? ''), lines.slice(i + 1, close)));
    i = close;
  }
  return steps;
}

interface BlockAttributes {
  readonly session: string;
  readonly exit: number;
  readonly timeoutMs: number;
}

function attributes(file: string, line: number, text: string): BlockAttributes {
  let session = 'main';
  let exit = 0;
  let timeoutS = DEFAULT_TIMEOUT_S;
  for (const word of text.trim().split(/\s+/).filter((w) => w !== '')) {
    const m = /^(session|exit|timeout)=(\S+)$/.exec(word);
    if (m === null) throw new Error(`${file}:${line}: unknown console block attribute '${word}' (session=, exit=, timeout=)`);
    if (m[1] === 'session') session = m[2] ?? session;
    else if (!/^\d+$/.test(m[2] ?? '')) throw new Error(`${file}:${line}: ${m[1]}= needs a number, got '${m[2]}'`);
    else if (m[1] === 'exit') exit = Number(m[2]);
    else timeoutS = Number(m[2]);
  }
  return { session, exit, timeoutMs: timeoutS * 1000 };
}

function parseBlock(file: string, fenceLine: number, attrs: BlockAttributes, body: readonly string[]): GuideStep[] {
  const steps: GuideStep[] = [];
  let current: { line: number; command: string | undefined; output: ExpectedLine[] } | undefined;
  const finish = (): void => {
    if (current === undefined) return;
    const cut = current.output.findIndex((l) => l.text === '^C');
    steps.push({
      file,
      line: current.line,
      command: current.command,
      session: attrs.session,
      exit: attrs.exit,
      timeoutMs: attrs.timeoutMs,
      expected: cut < 0 ? current.output : current.output.slice(0, cut),
      afterInterrupt: cut < 0 ? undefined : current.output.slice(cut + 1),
    });
  };
  for (let k = 0; k < body.length; k++) {
    const text = (body[k] ?? '').trimEnd();
    const line = fenceLine + 1 + k;
    if (text.startsWith('$ ')) {
      finish();
      let command = text.slice(2);
      // A command continued on the next line (`\` at the end), as a shell reads it.
      while (command.endsWith('\\') && k + 1 < body.length) command = `${command.slice(0, -1)}${(body[++k] ?? '').trim()}`.replace(/\s+$/, '');
      // A here-document: its lines, up to the terminator, belong to the command.
      const heredoc = /<<-?\s*['"]?(\w+)['"]?/.exec(command)?.[1];
      if (heredoc !== undefined) {
        const end = body.findIndex((l, j) => j > k && l.trim() === heredoc);
        if (end < 0) throw new Error(`${file}:${line}: here-document '${heredoc}' not terminated in the block`);
        command = [command, ...body.slice(k + 1, end + 1)].join('\n');
        k = end;
      }
      current = { line, command, output: [] };
    } else if (current === undefined) {
      if (attrs.session === 'main') throw new Error(`${file}:${line}: output before any '$ ' command (only a session= block may continue a running command)`);
      current = { line: fenceLine, command: undefined, output: [{ text, line }] };
    } else {
      current.output.push({ text, line });
    }
  }
  finish();
  // Blank lines at the end of a block are layout, not output.
  return steps.map((s) => ({ ...s, expected: trimBlankTail(s.expected), ...(s.afterInterrupt === undefined ? {} : { afterInterrupt: trimBlankTail(s.afterInterrupt) }) }));
}

function trimBlankTail(lines: readonly ExpectedLine[]): readonly ExpectedLine[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]?.text === '') end--;
  return lines.slice(0, end);
}

/** Terminal output as the guide shows it: no colours or carriage returns, no trailing blanks or blank lines. */
export function normalizeOutput(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const text = raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r\n?/g, '\n');
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function linePattern(text: string): string {
  if (text === '...') return '(?:[^\\n]*\\n)*?';
  return `${text.split('…').map(escape).join('[^\\n]*?')}\\n`;
}

/** A regular expression for the first `count` expected lines, anchored at the start (and at the end when `whole`). */
function pattern(expected: readonly ExpectedLine[], count: number, whole: boolean): RegExp {
  const body = expected.slice(0, count).map((l) => linePattern(l.text)).join('');
  return new RegExp(`^${body}${whole ? '$' : ''}`);
}

/** The result of matching output against expected lines. */
export type MatchResult =
  | { readonly ok: true; /** characters of the output the lines cover */ readonly length: number }
  | { readonly ok: false; /** the first expected line that does not match, or undefined when output is left over */ readonly line: ExpectedLine | undefined };

/**
 * Matches normalized output against expected lines: all of it (`whole`), or a prefix of it (a
 * command still running). On a mismatch names the first expected line that no longer matches.
 */
export function matchOutput(output: string, expected: readonly ExpectedLine[], whole: boolean): MatchResult {
  const full = pattern(expected, expected.length, whole).exec(output);
  if (full !== null) return { ok: true, length: full[0].length };
  for (let count = 1; count <= expected.length; count++) {
    // A trailing `...` matches nothing lazily; judge it with the line after it.
    if (expected[count - 1]?.text === '...' && count < expected.length) continue;
    if (pattern(expected, count, false).exec(output) === null) return { ok: false, line: expected[count - 1] };
  }
  return { ok: false, line: undefined };
}

/** A failure message naming the guide's file and line, with what the command printed. */
export function mismatchMessage(step: GuideStep, result: Extract<MatchResult, { ok: false }>, output: string, what = 'output'): string {
  const where = result.line === undefined ? `${step.file}:${step.line}` : `${step.file}:${result.line.line}`;
  const why = result.line === undefined ? `more ${what} than the guide shows` : `${what} does not match the guide's line ${JSON.stringify(result.line.text)}`;
  const shown = output.length > 4000 ? `…${output.slice(-4000)}` : output;
  return `${where}: \`${step.command ?? `(${step.session} continued)`}\`: ${why}\n--- it printed:\n${shown}---`;
}
