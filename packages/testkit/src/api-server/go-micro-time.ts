/**
 * What kube-apiserver 1.20 says when it decodes a `metav1.MicroTime` field (a Lease's `renewTime`):
 * the value must be a JSON string that Go's `time.Parse` reads with the layout
 * `2006-01-02T15:04:05.000000Z07:00`, exactly six fraction digits, so `…:10.500Z` and `…:10Z` are
 * refused (`cannot parse ".500Z" as ".000000"`). The parser below follows Go's element by element
 * and answers its `ParseError` text.
 */

const LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

const quote = (s: string): string => JSON.stringify(s);

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's type name of a JSON value in `json: cannot unmarshal … into Go value of type string`. */
function jsonTypeName(v: unknown): string {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 31);
}

type Step = { readonly layout: string; readonly read: (rest: string) => { readonly rest: string; readonly n?: number } | undefined };

/** Go's getnum: one or two digits (`fixed`: exactly two). */
function num(fixed: boolean) {
  return (rest: string) => {
    if (!isDigit(rest, 0)) return undefined;
    if (!isDigit(rest, 1)) return fixed ? undefined : { rest: rest.slice(1), n: Number(rest[0]) };
    return { rest: rest.slice(2), n: Number(rest.slice(0, 2)) };
  };
}

const literal = (text: string): Step => ({ layout: text, read: (rest) => (rest.startsWith(text) ? { rest: rest.slice(text.length) } : undefined) });

const STEPS: readonly Step[] = [
  { layout: '2006', read: (rest) => (rest.length >= 4 && /^\d{4}/.test(rest) ? { rest: rest.slice(4), n: Number(rest.slice(0, 4)) } : undefined) },
  literal('-'),
  { layout: '01', read: num(true) },
  literal('-'),
  { layout: '02', read: num(true) },
  literal('T'),
  { layout: '15', read: num(false) },
  literal(':'),
  { layout: '04', read: num(true) },
  literal(':'),
  { layout: '05', read: num(true) },
  { layout: '.000000', read: (rest) => (rest.length >= 7 && rest[0] === '.' && /^\d{6}$/.test(rest.slice(1, 7)) ? { rest: rest.slice(7) } : undefined) },
  {
    layout: 'Z07:00',
    read: (rest) => {
      if (rest.startsWith('Z')) return { rest: rest.slice(1) };
      if (rest.length < 6 || rest[3] !== ':' || (rest[0] !== '+' && rest[0] !== '-') || !/^\d\d$/.test(rest.slice(1, 3)) || !/^\d\d$/.test(rest.slice(4, 6))) return undefined;
      return { rest: rest.slice(6) };
    },
  },
];

/** The range each numbered element must be in, by layout element (Go's `… out of range`). */
const RANGES: Readonly<Record<string, readonly [string, number, number]>> = {
  '01': ['month', 1, 12],
  '15': ['hour', 0, 23],
  '04': ['minute', 0, 59],
  '05': ['second', 0, 59],
};

/** Go's `time.Parse(RFC3339Micro, s)` error text, or undefined when `s` parses. */
export function microTimeParseError(s: string): string | undefined {
  let rest = s;
  const numbers: Record<string, number> = {};
  for (const step of STEPS) {
    const read = step.read(rest);
    if (read === undefined) return `parsing time ${quote(s)} as ${quote(LAYOUT)}: cannot parse ${quote(rest)} as ${quote(step.layout)}`;
    const range = RANGES[step.layout];
    if (read.n !== undefined && range !== undefined && (read.n < range[1] || read.n > range[2])) return `parsing time ${quote(s)}: ${range[0]} out of range`;
    if (read.n !== undefined) numbers[step.layout] = read.n;
    rest = read.rest;
  }
  if (rest.length > 0) return `parsing time ${quote(s)}: extra text: ${quote(rest)}`;
  const day = numbers['02'] ?? 1;
  if (day < 1 || day > daysIn(numbers['01'] ?? 1, numbers['2006'] ?? 0)) return `parsing time ${quote(s)}: day out of range`;
  return undefined;
}

/** json-iterator's message for `v` as a MicroTime field (after `unmarshalerDecoder: `), or undefined when it decodes. */
export function microTimeError(v: unknown): string | undefined {
  if (typeof v !== 'string') return `unmarshalerDecoder: json: cannot unmarshal ${jsonTypeName(v)} into Go value of type string`;
  const parse = microTimeParseError(v);
  return parse === undefined ? undefined : `unmarshalerDecoder: ${parse}`;
}
