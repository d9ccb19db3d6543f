import { lookup as dnsLookup } from 'node:dns/promises';
import { createRequire } from 'node:module';
import type ipaddrModule from 'ipaddr.js';
import { EgressRefusedError } from '../errors.js';

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
    if (url.username !== '' || url.password !== '')
      return refused(url, 'it carries a user name or password; use a credential instead');
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
  const { ipaddr } = lib();
  if (!ipaddr.isValid(host)) return undefined;
  const parsed = ipaddr.parse(host);
  return parsed.kind() === 'ipv4' ? { address: parsed.toString(), family: 4 } : { address: host, family: 6 };
}

/**
 * Why `address` is not a public address, or `undefined` when it is. The table the egress check uses;
 * exported for tests and for checks of your own. Addresses are parsed and classified by ipaddr.js (its
 * IANA special-purpose ranges, and the numeric IPv4 forms `inet_aton` reads: `2130706433`,
 * `0x7f000001`, `0177.0.0.1`, `127.1`); kept here by hand is only what it does not do: the cloud
 * metadata addresses, the IPv4 address inside a 6to4 one, IPv4-compatible IPv6, anything outside IPv6
 * global unicast (2000::/3), and the wording.
 */
export function nonPublicReason(address: string): string | undefined {
  const { ipaddr } = lib();
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // ipaddr.js reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`; it is the IPv4-compatible form.
  if (/^::[0-9a-fx]*\.[0-9a-fx.]*(%.*)?$/i.test(address)) return IPV4_COMPATIBLE;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? ipv4Reason(parsed as IPv4) : ipv6Reason(parsed as IPv6);
}

type IPv4 = ipaddrModule.IPv4;
type IPv6 = ipaddrModule.IPv6;
/** What `subnetMatch` takes (ipaddr.js declares the type but does not export it). */
type RangeList<T> = Record<string, [T, number][]>;

/** ipaddr.js's IPv4 ranges that are not public, in words. */
const IPV4_REFUSED: Readonly<Record<string, string>> = {
  unspecified: 'unspecified ("this network")',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (169.254.0.0/16)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private (10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)',
  reserved: 'reserved',
};

/** Which of ipaddr.js's `reserved` IPv4 ranges an address is in, for the reason's wording. */
const IPV4_RESERVED_CIDRS = {
  'reserved for IETF protocols (192.0.0.0/24)': ['192.0.0.0/24'],
  'documentation (192.0.2.0/24, 198.51.100.0/24 or 203.0.113.0/24)': [
    '192.0.2.0/24',
    '198.51.100.0/24',
    '203.0.113.0/24',
  ],
  'the deprecated 6to4 relay range (192.88.99.0/24)': ['192.88.99.0/24'],
  'benchmarking (198.18.0.0/15)': ['198.18.0.0/15'],
  'reserved (240.0.0.0/4)': ['240.0.0.0/4'],
};

const IPV4_COMPATIBLE = 'an IPv4-compatible IPv6 address (deprecated)';

function ipv4Reason(address: IPv4): string | undefined {
  const range = address.range();
  const why = IPV4_REFUSED[range];
  if (why === undefined) return undefined;
  if (range === 'linkLocal' && address.match(lib().metadataV4, 32)) return 'the cloud metadata address';
  if (range === 'reserved') return lib().ipaddr.subnetMatch(address, lib().reservedV4, why);
  return why;
}

/** ipaddr.js's IPv6 ranges that are not public, in words; `6to4` and `unicast` are decided by hand. */
const IPV6_REFUSED: Readonly<Record<string, string>> = {
  unspecified: 'unspecified (::)',
  loopback: 'loopback (::1)',
  uniqueLocal: 'unique-local (fc00::/7)',
  linkLocal: 'link-local (fe80::/10)',
  deprecatedSiteLocal: 'site-local (fec0::/10, deprecated)',
  multicast: 'multicast (ff00::/8)',
  rfc6145: 'an IPv4-translated IPv6 address (::ffff:0:0:0/96)',
  rfc6052: 'NAT64 (64:ff9b::/96), which reaches IPv4 addresses',
  teredo: 'Teredo (2001::/32), which tunnels to IPv4 addresses',
  discard: 'the discard-only range (100::/64)',
  benchmarking: 'benchmarking (2001:2::/48)',
  deprecatedOrchid: 'ORCHID (2001:10::/28)',
  orchid2: 'ORCHIDv2 (2001:20::/28)',
  droneRemoteIdProtocolEntityTags: 'drone remote ID tags (2001:30::/28)',
  segmentRouting: 'segment routing (5f00::/16)',
  reserved: 'reserved',
};

/** Which of ipaddr.js's `reserved` IPv6 ranges an address is in, for the reason's wording. */
const IPV6_RESERVED_CIDRS = {
  'documentation (2001:db8::/32)': ['2001:db8::/32'],
  'documentation (3fff::/20)': ['3fff::/20'],
  'reserved for IETF protocols (2001::/23)': ['2001::/23'],
};

/**
 * ipaddr.js and the addresses and ranges made with it, on the first check: most starts (a served
 * toolset, stdio servers) never check an address, and loading it took 4 ms of each (startup.bench.ts).
 */
let loaded:
  | {
      readonly ipaddr: typeof ipaddrModule;
      readonly metadataV4: IPv4;
      readonly metadataV6: IPv6;
      readonly reservedV4: RangeList<IPv4 | IPv6>;
      readonly reservedV6: RangeList<IPv4 | IPv6>;
    }
  | undefined;

function lib(): NonNullable<typeof loaded> {
  if (loaded === undefined) {
    const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof ipaddrModule;
    /** A range list for `subnetMatch`, from CIDR strings by name. */
    const ranges = (byName: Readonly<Record<string, readonly string[]>>): RangeList<IPv4 | IPv6> => {
      const list: RangeList<IPv4 | IPv6> = {};
      for (const [name, cidrs] of Object.entries(byName)) list[name] = cidrs.map((cidr) => ipaddr.parseCIDR(cidr));
      return list;
    };
    loaded = {
      ipaddr,
      metadataV4: ipaddr.IPv4.parse('169.254.169.254'),
      metadataV6: ipaddr.IPv6.parse('fd00:ec2::254'),
      reservedV4: ranges(IPV4_RESERVED_CIDRS),
      reservedV6: ranges(IPV6_RESERVED_CIDRS),
    };
  }
  return loaded;
}

function ipv6Reason(address: IPv6): string | undefined {
  const range = address.range() as string;
  const words = address.parts;
  if (range === 'ipv4Mapped')
    return `an IPv4-mapped IPv6 address (of ${address.toIPv4Address().toString()}); use the IPv4 address itself`;
  if (range === 'uniqueLocal' && address.match(lib().metadataV6, 128)) return 'the cloud metadata address';
  // ::/96 (but :: and ::1, which ipaddr.js names): IPv4-compatible, deprecated, and another way to write an IPv4 address.
  if (range === 'unicast' && words.slice(0, 6).every((w) => w === 0)) return IPV4_COMPATIBLE;
  if ((range === 'unicast' || range === 'discard' || range === 'segmentRouting') && (words[0]! & 0xe000) !== 0x2000)
    return 'outside IPv6 global unicast (2000::/3)';
  if (range === '6to4') {
    const inner = ipv4Reason(
      new (lib().ipaddr.IPv4)([words[1]! >> 8, words[1]! & 0xff, words[2]! >> 8, words[2]! & 0xff]),
    );
    return inner === undefined ? undefined : `a 6to4 address of an IPv4 address that is ${inner}`;
  }
  const why = IPV6_REFUSED[range];
  if (why === undefined) return undefined;
  return range === 'reserved' ? lib().ipaddr.subnetMatch(address, lib().reservedV6, why) : why;
}

/**
 * The egress check for a server being added at runtime: it must be reached over HTTP(S) (`url`, none
 * for a command), and its URL must pass. Nothing to do without a check.
 */
export async function admitRuntime(
  check: EgressCheck | undefined,
  hub: string,
  name: string,
  url: string | undefined,
): Promise<void> {
  if (check === undefined) return;
  if (url === undefined) {
    throw new EgressRefusedError(
      `MCP server "${name}" runs a command; hub "${hub}" has an egress check, so servers added at runtime must use { http: { url } }.`,
    );
  }
  let verdict;
  try {
    verdict = await check(new URL(url));
  } catch (error) {
    throw new EgressRefusedError(
      `MCP server "${name}": the egress check threw (${(error as Error).message}), so it is refused.`,
      { cause: error },
    );
  }
  if (!verdict.ok) throw new EgressRefusedError(`MCP server "${name}" is not added: ${verdict.reason}`);
}
