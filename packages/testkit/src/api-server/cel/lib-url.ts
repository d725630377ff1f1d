/**
 * Kubernetes' CEL URL library (k8s.io/apiserver/pkg/cel/library/urls.go): `url(s)`, `isURL(s)`,
 * and on a URL `getScheme()`, `getHost()`, `getHostname()`, `getPort()`, `getEscapedPath()`,
 * `getQuery()`. Parsing follows Go's `url.ParseRequestURI` in the common cases (an absolute URI,
 * or an absolute path), through the WHATWG URL parser.
 */
import { celFunc, celMethod, CelScalar, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { fail, noOverload, opaque, payloadOf } from './opaque.js';

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

interface ParsedUrl {
  readonly scheme: string;
  readonly host: string;
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
  readonly query: Map<string, string[]>;
}

function parseUrl(s: string): ParsedUrl | undefined {
  if (s === '' || /\s/.test(s)) return undefined;
  const absolutePath = s.startsWith('/');
  if (!absolutePath && !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s)) return undefined;
  let u: URL;
  try {
    u = absolutePath ? new URL(s, 'rxkube-relative://') : new URL(s);
  } catch {
    return undefined;
  }
  const query = new Map<string, string[]>();
  for (const [k, v] of u.searchParams) query.set(k, [...(query.get(k) ?? []), v]);
  const scheme = absolutePath ? '' : u.protocol.slice(0, -1);
  const hasAuthority = !absolutePath && /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(s);
  const host = hasAuthority ? u.host : '';
  return { scheme, host, hostname: hasAuthority ? u.hostname.replace(/^\[(.*)\]$/, '$1') : '', port: hasAuthority ? u.port : '', path: u.pathname === '' ? '' : hasAuthority || absolutePath ? u.pathname : '', query };
}

function method(name: string, fn: (u: ParsedUrl) => CelValue | Map<string, string[]>) {
  return celMethod(name, MAP, [], CelScalar.DYN, function (this: CelMap) {
    const u = payloadOf<ParsedUrl>(this, 'url');
    return u === undefined ? noOverload(name) : (fn(u) as CelValue);
  });
}

/** The URL functions. */
export const URL_FUNCS: readonly CelFunc[] = [
  celFunc('url', [CelScalar.STRING], CelScalar.DYN, (s: string) => {
    const u = parseUrl(s);
    return u === undefined ? fail(`URL parse error during conversion from string: parse "${s}": invalid URI for request`) : opaque('url', u, s);
  }),
  celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseUrl(s) !== undefined),
  method('getScheme', (u) => u.scheme),
  method('getHost', (u) => u.host),
  method('getHostname', (u) => u.hostname),
  method('getPort', (u) => u.port),
  method('getEscapedPath', (u) => u.path),
  method('getQuery', (u) => u.query),
];
