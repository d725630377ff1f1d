/**
 * The syntax of label keys, label values and integer bounds, as Kubernetes apimachinery checks them
 * (`validation.IsQualifiedName` / `content.IsLabelKey`, `IsValidLabelValue`, `strconv.ParseInt(s, 10, 64)`).
 * Each check returns what is wrong, or `undefined` when the text is valid.
 */

const NAME_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const NAME = new RegExp(`^${NAME_FORMAT}$`);
const VALUE = new RegExp(`^(${NAME_FORMAT})?$`);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_MAX = 63;
const VALUE_MAX = 63;
const PREFIX_MAX = 253;
const NAME_RULE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/**
 * Checks a label key: an optional DNS-subdomain prefix (at most 253 characters) and `/`, then a name
 * of 1–63 characters `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`. More than one `/` is invalid.
 * @returns what is wrong with `key`, or `undefined` when it is a valid label key.
 */
export function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `a valid label key ${NAME_RULE}, with an optional DNS subdomain prefix and '/'`;
  const name = parts.length === 2 ? (parts[1] ?? '') : key;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') return 'prefix part must be non-empty';
    if (prefix.length > PREFIX_MAX) return `prefix part must be no more than ${PREFIX_MAX} characters`;
    if (!DNS_SUBDOMAIN.test(prefix)) return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > NAME_MAX) return `name part must be no more than ${NAME_MAX} characters`;
  if (!NAME.test(name)) return `name part ${NAME_RULE}`;
  return undefined;
}

/**
 * Checks a label value: empty, or 1–63 characters `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`
 * (so `-5`, `+5` and `-0` are not label values, `05` and `5.0` are).
 * @returns what is wrong with `value`, or `undefined` when it is a valid label value.
 */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > VALUE_MAX) return `must be no more than ${VALUE_MAX} characters`;
  if (!VALUE.test(value)) return `a valid label must be an empty string or ${NAME_RULE.replace('must consist', 'consist')}`;
  return undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^[+-]?[0-9]+$/;

/**
 * Parses a base-10 signed 64-bit integer exactly as Go's `strconv.ParseInt(text, 10, 64)` does: one
 * optional `+` or `-`, then one or more ASCII digits (leading zeros allowed, no spaces, `_`, `.`,
 * exponent or base prefix), within [-2^63, 2^63-1].
 * @returns the integer, or `undefined` when `text` is not one (a syntax or range error in Go).
 */
export function parseInt64(text: string): bigint | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}
