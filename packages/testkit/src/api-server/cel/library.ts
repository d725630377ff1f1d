/**
 * The CEL environment of Kubernetes expressions: the standard library of @bufbuild/cel, its
 * strings extension (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split,
 * substring, trim, join, format), and the Kubernetes libraries written here (lists, sets, regex,
 * optionals, quantity, URL, IP and CIDR), plus the cost meter's functions.
 */
import { celEnv, type CelEnv, type CelFunc } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { COST_FUNCS } from './cost.js';
import { IP_FUNCS } from './lib-ip.js';
import { LIST_FUNCS } from './lib-lists.js';
import { OPTIONAL_FUNCS } from './lib-optional.js';
import { QUANTITY_FUNCS } from './lib-quantity.js';
import { REGEX_FUNCS } from './lib-regex.js';
import { URL_FUNCS } from './lib-url.js';

const KUBERNETES_FUNCS: readonly CelFunc[] = [...LIST_FUNCS, ...REGEX_FUNCS, ...OPTIONAL_FUNCS, ...QUANTITY_FUNCS, ...URL_FUNCS, ...IP_FUNCS];

/** Functions of CEL's standard library (macros are expanded by the parser). */
const STANDARD = [
  'size', 'matches', 'contains', 'startsWith', 'endsWith', 'int', 'uint', 'double', 'string', 'bytes', 'bool', 'type', 'dyn',
  'duration', 'timestamp', 'getFullYear', 'getMonth', 'getDayOfYear', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getHours',
  'getMinutes', 'getSeconds', 'getMilliseconds', 'null_type', 'list', 'map',
];

/** Names a call may use: standard, extension and Kubernetes functions (qualified ones as written, e.g. `sets.contains`). */
export const KNOWN_FUNCTIONS: ReadonlySet<string> = new Set([...STANDARD, ...strings.map((f) => f.name), ...KUBERNETES_FUNCS.map((f) => f.name)]);

let env: CelEnv | undefined;

/** The shared environment (functions only: variables are bound at evaluation). */
export function kubernetesCelEnv(): CelEnv {
  env ??= celEnv({ funcs: [...strings, ...KUBERNETES_FUNCS, ...COST_FUNCS] });
  return env;
}
