/**
 * Kubernetes' CEL IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go):
 * `ip(s)`, `isIP(s)`, `ip.isCanonical(s)`, and on an IP `family()`, `isUnspecified()`,
 * `isLoopback()`, `isLinkLocalMulticast()`, `isLinkLocalUnicast()`, `isGlobalUnicast()`;
 * `cidr(s)`, `isCIDR(s)`, and on a CIDR `containsIP(ip|string)`, `containsCIDR(cidr|string)`,
 * `ip()`, `masked()`, `prefixLength()`. IPv4-mapped IPv6 addresses and zones are refused, as there.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { celFunc, celMethod, CelScalar, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { fail, noOverload, opaque, payloadOf } from './opaque.js';

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

interface Ip {
  readonly family: 4 | 6;
  readonly bits: bigint;
}

interface Cidr {
  readonly ip: Ip;
  readonly prefix: number;
}

function v6Groups(s: string): number[] | undefined {
  let text = s;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // An IPv4 tail is two groups.
    const v4 = parseIp(text.slice(lastColon + 1));
    if (v4?.family !== 4) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4.bits >> 16n).toString(16)}:${(v4.bits & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parts = (x: string) => (x === '' ? [] : x.split(':').map((g) => parseInt(g, 16)));
  const a = parts(halves[0] ?? '');
  const b = halves.length === 2 ? parts(halves[1] ?? '') : [];
  const fill = 8 - a.length - b.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  return [...a, ...new Array<number>(halves.length === 1 ? 0 : fill).fill(0), ...b];
}

/** Parses an IP address as Go's netip.ParseAddr does (no zones); undefined when it is not one. */
export function parseIp(s: string): Ip | undefined {
  if (isIPv4(s)) {
    const parts = s.split('.');
    if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
    return { family: 4, bits: parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n) };
  }
  if (!isIPv6(s) || s.includes('%')) return undefined;
  const groups = v6Groups(s);
  if (groups === undefined || groups.length !== 8) return undefined;
  return { family: 6, bits: groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n) };
}

function ipString(ip: Ip): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((sh) => String((ip.bits >> sh) & 255n)).join('.');
  const groups = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.bits >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups becomes '::' (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

function isMapped4(ip: Ip): boolean {
  return ip.family === 6 && ip.bits >> 32n === 0xffffn;
}

function ipValue(ip: Ip): CelMap {
  return opaque('ip', ip, ipString(ip));
}

function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(s.slice(0, slash));
  const p = s.slice(slash + 1);
  if (ip === undefined || !/^(0|[1-9][0-9]*)$/.test(p)) return undefined;
  const prefix = Number(p);
  if (prefix > (ip.family === 4 ? 32 : 128)) return undefined;
  return { ip, prefix };
}

function width(ip: Ip): bigint {
  return ip.family === 4 ? 32n : 128n;
}

function masked(c: Cidr): Ip {
  const w = width(c.ip);
  const host = w - BigInt(c.prefix);
  return { family: c.ip.family, bits: (c.ip.bits >> host) << host };
}

function contains(c: Cidr, ip: Ip): boolean {
  if (ip.family !== c.ip.family) return false;
  const host = width(ip) - BigInt(c.prefix);
  return ip.bits >> host === c.ip.bits >> host;
}

function cidrValue(c: Cidr): CelMap {
  return opaque('cidr', c, `${ipString(c.ip)}/${c.prefix}`);
}

function ipMethod(name: string, fn: (ip: Ip) => CelValue) {
  return celMethod(name, MAP, [], CelScalar.DYN, function (this: CelMap) {
    const ip = payloadOf<Ip>(this, 'ip');
    return ip === undefined ? noOverload(name) : fn(ip);
  });
}

function cidrMethod(name: string, args: readonly (typeof CelScalar.DYN)[], fn: (c: Cidr, ...a: CelValue[]) => CelValue) {
  return celMethod(name, MAP, args, CelScalar.DYN, function (this: CelMap, ...a: CelValue[]) {
    const c = payloadOf<Cidr>(this, 'cidr');
    return c === undefined ? noOverload(name) : fn(c, ...a);
  });
}

function inRange(ip: Ip, family: 4 | 6, prefixBits: bigint, prefixLength: number): boolean {
  return ip.family === family && ip.bits >> (width(ip) - BigInt(prefixLength)) === prefixBits;
}

/** The IP and CIDR functions. */
export const IP_FUNCS: readonly CelFunc[] = [
  celFunc('ip', [CelScalar.STRING], CelScalar.DYN, (s: string) => {
    const ip = parseIp(s);
    if (ip === undefined) return fail(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): unable to parse IP`);
    if (isMapped4(ip)) return fail('IPv4-mapped IPv6 address is not allowed');
    return ipValue(ip);
  }),
  celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s: string) => {
    const ip = parseIp(s);
    return ip !== undefined && !isMapped4(ip);
  }),
  celFunc('ip.isCanonical', [CelScalar.STRING], CelScalar.DYN, (s: string) => {
    const ip = parseIp(s);
    return ip === undefined ? fail(`IP Address ${JSON.stringify(s)} parse error during conversion from string`) : ipString(ip) === s;
  }),
  ipMethod('family', (ip) => BigInt(ip.family)),
  ipMethod('isUnspecified', (ip) => ip.bits === 0n),
  ipMethod('isLoopback', (ip) => (ip.family === 4 ? ip.bits >> 24n === 127n : ip.bits === 1n)),
  ipMethod('isLinkLocalMulticast', (ip) => inRange(ip, 4, 0xe00000n, 24) || inRange(ip, 6, 0xff02n, 16)),
  ipMethod('isLinkLocalUnicast', (ip) => inRange(ip, 4, 0xa9fen, 16) || inRange(ip, 6, 0x3fan, 10)),
  ipMethod('isGlobalUnicast', (ip) => {
    if (ip.bits === 0n) return false;
    if (ip.family === 4) return !(ip.bits >> 24n === 127n || inRange(ip, 4, 0xa9fen, 16) || ip.bits >> 28n === 0xen || ip.bits === 0xffffffffn);
    return !(ip.bits === 1n || inRange(ip, 6, 0x3fan, 10) || ip.bits >> 120n === 0xffn);
  }),
  celFunc('cidr', [CelScalar.STRING], CelScalar.DYN, (s: string) => {
    const c = parseCidr(s);
    return c === undefined ? fail(`network address parse error during conversion from string: network address ${JSON.stringify(s)} is not a valid CIDR`) : cidrValue(c);
  }),
  celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseCidr(s) !== undefined),
  cidrMethod('containsIP', [CelScalar.DYN], (c, x) => {
    const ip = typeof x === 'string' ? parseIp(x) : payloadOf<Ip>(x, 'ip');
    return ip === undefined ? noOverload('containsIP') : contains(c, ip);
  }),
  cidrMethod('containsCIDR', [CelScalar.DYN], (c, x) => {
    const o = typeof x === 'string' ? parseCidr(x) : payloadOf<Cidr>(x, 'cidr');
    return o === undefined ? noOverload('containsCIDR') : o.prefix >= c.prefix && contains(c, o.ip);
  }),
  cidrMethod('ip', [], (c) => ipValue(c.ip)),
  cidrMethod('masked', [], (c) => cidrValue({ ip: masked(c), prefix: c.prefix })),
  cidrMethod('prefixLength', [], (c) => BigInt(c.prefix)),
];
