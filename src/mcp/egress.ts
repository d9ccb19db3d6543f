import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { WardrikError } from '../errors.js';

/** An egress check refused a URL: the server is not added, or the connection does not start. Not transient. */
export class EgressRefused extends WardrikError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('egress_refused', message, options);
  }
}

/** An address a host name resolved to, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * What an egress check answers for a URL. `ok: true` lets the connection start; `addresses`, when
 * given, pins it: the connection goes to the first of them (never to whatever DNS says a moment later),
 * with the URL's host name kept for the `Host` header and TLS. `ok: false` refuses it, with a reason a
 * developer can act on.
 */
export type EgressVerdict =
  | { readonly ok: true; readonly addresses?: readonly ResolvedAddress[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Decides whether Wardrik may connect to a runtime MCP server's URL. Called when the server is added,
 * each time its connection starts, and for every other origin a request is sent to (a redirect). A
 * check that throws refuses (fail closed).
 */
export type EgressCheck = (url: URL) => EgressVerdict | Promise<EgressVerdict>;

/** How `publicOnly` resolves host names; `dns.lookup(host, { all: true, verbatim: true })` unless replaced. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface PublicOnlyOptions {
  /** Replace DNS resolution (tests, a resolver of your own). */
  readonly resolve?: HostResolver;
}

const systemResolver: HostResolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/**
 * A ready-made check for servers whose URLs users supply: only `http:` and `https:`, and only public
 * addresses. The host is resolved first and every address it resolves to must be public (one private
 * answer refuses it, so a name with a public and a private record cannot be used to reach the private
 * one); the connection is pinned to the first checked address. Refused: loopback, private (10/8,
 * 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), link-local (169.254/16, fe80::/10) and with it
 * cloud metadata (169.254.169.254, fd00:ec2::254), unspecified, broadcast, multicast, reserved and
 * documentation ranges, unique-local IPv6 (fc00::/7), IPv4-mapped and IPv4-compatible IPv6, and any
 * IPv6 outside global unicast (2000::/3). Numeric host forms (`2130706433`, `0x7f000001`, `0177.0.0.1`,
 * `127.1`) are read as the addresses they stand for.
 */
export function publicOnly(options: PublicOnlyOptions = {}): EgressCheck {
  const resolve = options.resolve ?? systemResolver;
  return async (url) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return refused(url, `its scheme "${url.protocol}" is not http: or https:`);
    }
    if (url.username !== '' || url.password !== '') return refused(url, 'it carries a user name or password; use a credential instead');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const literal = ipLiteral(host);
    if (literal !== undefined) {
      const why = nonPublicReason(literal.address);
      return why === undefined ? { ok: true, addresses: [literal] } : refused(url, `${literal.address} is ${why}`);
    }
    const lower = host.toLowerCase().replace(/\.$/, '');
    if (lower === 'localhost' || lower.endsWith('.localhost')) return refused(url, `"${host}" is loopback`);
    let addresses: readonly ResolvedAddress[];
    try {
      addresses = await resolve(host);
    } catch (error) {
      return refused(url, `"${host}" could not be resolved (${(error as Error).message})`);
    }
    if (addresses.length === 0) return refused(url, `"${host}" resolved to no address`);
    for (const entry of addresses) {
      const why = nonPublicReason(entry.address);
      if (why !== undefined) return refused(url, `"${host}" resolves to ${entry.address}, which is ${why}`);
    }
    return { ok: true, addresses };
  };
}

function refused(url: URL, why: string): EgressVerdict {
  return { ok: false, reason: `${url.protocol}//${url.host} is refused by the egress check: ${why}.` };
}

/** The host as an IP address, if it is one (including the numeric IPv4 forms `inet_aton` accepts). */
export function ipLiteral(host: string): ResolvedAddress | undefined {
  const family = isIP(host);
  if (family === 4 || family === 6) return { address: host, family };
  const v4 = parseLooseIpv4(host);
  return v4 === undefined ? undefined : { address: formatIpv4(v4), family: 4 };
}

/**
 * Why `address` is not a public address, or `undefined` when it is. The table the egress check uses;
 * exported for tests and for checks of your own.
 */
export function nonPublicReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return ipv4Reason(parseLooseIpv4(address)!);
  if (family === 6) return ipv6Reason(parseIpv6(address));
  const loose = parseLooseIpv4(address);
  if (loose !== undefined) return ipv4Reason(loose);
  return 'not an IP address';
}

const IPV4_RANGES: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'the cloud metadata address'],
  ['169.254.0.0', 16, 'link-local (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'private (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'reserved for IETF protocols (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2.0/24)'],
  ['192.88.99.0', 24, 'the deprecated 6to4 relay range'],
  ['192.168.0.0', 16, 'private (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved (240.0.0.0/4)'],
];

const IPV4_TABLE = IPV4_RANGES.map(([base, bits, why]) => ({ base: parseLooseIpv4(base)!, mask: bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0, why }));

function ipv4Reason(value: number): string | undefined {
  for (const range of IPV4_TABLE) if (((value & range.mask) >>> 0) === range.base) return range.why;
  return undefined;
}

function ipv6Reason(words: readonly number[]): string | undefined {
  const allZero = (from: number, to: number): boolean => words.slice(from, to).every((w) => w === 0);
  const embedded = (high: number, low: number): number => ((high << 16) | low) >>> 0;
  if (allZero(0, 8)) return 'unspecified (::)';
  if (allZero(0, 7) && words[7] === 1) return 'loopback (::1)';
  if (allZero(0, 5) && words[5] === 0xffff) {
    return `an IPv4-mapped IPv6 address (of ${formatIpv4(embedded(words[6]!, words[7]!))}); use the IPv4 address itself`;
  }
  if (allZero(0, 6)) return 'an IPv4-compatible IPv6 address (deprecated)';
  if (words[0] === 0xfd00 && words[1] === 0x0ec2 && allZero(2, 7) && words[7] === 0x254) return 'the cloud metadata address';
  const first = words[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'unique-local (fc00::/7)';
  if ((first & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((first & 0xffc0) === 0xfec0) return 'site-local (fec0::/10, deprecated)';
  if ((first & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  if (first === 0x0064 && words[1] === 0xff9b) return 'NAT64 (64:ff9b::/96), which reaches IPv4 addresses';
  if ((first & 0xe000) !== 0x2000) return 'outside IPv6 global unicast (2000::/3)';
  if (first === 0x2001 && words[1] === 0x0db8) return 'documentation (2001:db8::/32)';
  if (first === 0x2001 && words[1] === 0x0000) return 'Teredo (2001::/32), which tunnels to IPv4 addresses';
  if (first === 0x2001 && (words[1]! & 0xfff0) === 0x0010) return 'ORCHID (2001:10::/28)';
  if (first === 0x2001 && (words[1]! & 0xfff0) === 0x0020) return 'ORCHIDv2 (2001:20::/28)';
  if (first === 0x2002) {
    const inner = ipv4Reason(embedded(words[1]!, words[2]!));
    return inner === undefined ? undefined : `a 6to4 address of an IPv4 address that is ${inner}`;
  }
  return undefined;
}

/** An IPv6 address as its eight 16-bit words (a trailing dotted IPv4 part included). */
function parseIpv6(text: string): number[] {
  let address = text.toLowerCase();
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseLooseIpv4(last) ?? 0;
    address = `${address.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = address.split('::');
  const parts = (s: string): number[] => (s === '' ? [] : s.split(':').filter((p) => p !== '').map((p) => parseInt(p, 16)));
  const left = parts(head);
  const right = rest === undefined ? [] : parts(rest);
  const fill = 8 - left.length - right.length;
  return [...left, ...Array<number>(Math.max(0, fill)).fill(0), ...right].slice(0, 8);
}

/**
 * An IPv4 address in any form `inet_aton` reads: dotted with 1 to 4 parts, each decimal, octal
 * (leading 0) or hexadecimal (0x), the last part filling the remaining bytes (`127.1`, `2130706433`).
 */
function parseLooseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length === 0 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = parseInt(part, 10);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return undefined;
  const lastBytes = 4 - values.length;
  if (last >= 2 ** (8 * lastBytes)) return undefined;
  let result = 0;
  values.forEach((v, i) => {
    result += v * 2 ** (8 * (3 - i));
  });
  return (result + last) >>> 0;
}

function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}
