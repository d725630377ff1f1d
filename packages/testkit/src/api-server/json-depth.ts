/**
 * The nesting limit of request bodies. kube-apiserver's JSON decoders stop at 10,000 levels; the
 * embedded server stops at {@link MAX_BODY_DEPTH}, below the depth at which V8's recursive
 * `JSON.stringify` and `structuredClone` overflow the stack (about 1,600 levels of objects), so a
 * deeper body gets 400 BadRequest instead of a 500 "Maximum call stack size exceeded".
 */

/** The deepest nesting of objects and arrays a request body may have (the top-level object is level 1). */
export const MAX_BODY_DEPTH = 1000;

/**
 * The opening character (`{` or `[`) of the first object or array nested deeper than `max` in
 * `value`, or undefined when none is (checked without recursion).
 */
export function tooDeepAt(value: unknown, max: number): '{' | '[' | undefined {
  // Two parallel stacks (values and their depths): no allocation per visited node.
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop() as number;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return Array.isArray(v) ? '[' : '{';
    if (Array.isArray(v)) {
      for (const child of v) {
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in v) {
        const child = (v as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return undefined;
}

/**
 * Whether the JSON text `text` opens at most `max` objects and arrays in all (counting `{` and `[`
 * also inside strings): such a text cannot nest deeper than `max`, so its parsed value needs no
 * {@link tooDeepAt} walk. Found with native `indexOf` scans, stopping as soon as the count passes `max`.
 */
export function opensAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const opener of ['{', '[']) {
    for (let at = text.indexOf(opener); at !== -1; at = text.indexOf(opener, at + 1)) {
      if (++count > max) return false;
    }
  }
  return true;
}
