import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nonPublicReason, publicOnly, type EgressVerdict, type ResolvedAddress } from '../../src/index.js';
import { pinnedFetch } from '../../src/mcp/pinned-fetch.js';
import { startHttpFixture } from './fixtures/http-server.js';

/** A resolver that knows only these names: no real DNS in tests. */
function fakeDns(table: Record<string, readonly string[]>) {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<readonly ResolvedAddress[]> => {
    asked.push(host);
    const found = table[host];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, asked };
}

async function verdict(url: string, table: Record<string, readonly string[]> = {}): Promise<EgressVerdict> {
  return publicOnly({ resolve: fakeDns(table).resolve })(new URL(url));
}

describe('The egress address table', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.1.1', /link-local/],
    ['169.254.169.254', /metadata/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['240.0.0.1', /reserved/],
    ['192.0.2.10', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fe80::1', /link-local/],
    ['febf::1', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['fd00:ec2::254', /metadata/],
    ['ff02::1', /multicast/],
    ['::ffff:127.0.0.1', /IPv4-mapped/],
    ['::ffff:7f00:1', /IPv4-mapped/],
    ['::ffff:8.8.8.8', /IPv4-mapped/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['64:ff9b::7f00:1', /NAT64/],
    ['2001:db8::1', /documentation/],
    ['2001:0:4136:e378::1', /Teredo/],
    ['2002:7f00:1::1', /6to4 .*loopback/],
    ['2002:c0a8:101::1', /6to4 .*private/],
    ['fec0::1', /site-local/],
    ['100::1', /outside IPv6 global unicast/],
    ['192.88.99.1', /6to4 relay/],
    ['198.51.100.7', /documentation/],
    ['::ffff:0:7f00:1', /IPv4-translated/],
    ['2001:2::1', /benchmarking/],
    ['3fff::1', /documentation/],
    ['2001:30::1', /drone/],
    ['fe80::1%eth0', /link-local/],
  ];
  for (const [address, why] of refused) {
    it(`refuses ${address}`, () => {
      assert.match(nonPublicReason(address) ?? 'allowed', why);
    });
  }

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2002:808:808::1',
  ];
  for (const address of allowed) {
    it(`allows ${address}`, () => {
      assert.equal(nonPublicReason(address), undefined);
    });
  }

  it('reads the numeric forms of an IPv4 address as the address they stand for', () => {
    for (const form of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.1', '017700000001']) {
      assert.match(nonPublicReason(form) ?? 'allowed', /loopback/, form);
    }
    assert.match(nonPublicReason('0xa9fea9fe') ?? 'allowed', /metadata/);
  });
});

describe('publicOnly', () => {
  it('refuses loopback, private and metadata hosts given as literals, in every numeric form', async () => {
    for (const url of [
      'http://127.0.0.1/mcp',
      'http://2130706433/mcp',
      'http://0x7f000001/mcp',
      'http://0177.0.0.1/mcp',
      'http://127.1/mcp',
      'http://[::1]/mcp',
      'http://[::ffff:127.0.0.1]/mcp',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.5:8080/mcp',
      'http://0.0.0.0/',
      'http://localhost:3000/mcp',
      'http://api.localhost/mcp',
    ]) {
      const result = await verdict(url);
      assert.equal(result.ok, false, url);
    }
  });

  it('resolves the host first and refuses it when any address is not public (no DNS rebinding through a second record)', async () => {
    const dns = fakeDns({
      'mixed.example': ['93.184.216.34', '10.0.0.7'],
      'inside.example': ['192.168.0.9'],
      'mapped.example': ['::ffff:127.0.0.1'],
    });
    const check = publicOnly({ resolve: dns.resolve });
    const mixed = await check(new URL('https://mixed.example/mcp'));
    assert.equal(mixed.ok, false);
    assert.match((mixed as { reason: string }).reason, /10\.0\.0\.7.*private/);
    assert.equal((await check(new URL('https://inside.example/mcp'))).ok, false);
    assert.equal((await check(new URL('https://mapped.example/mcp'))).ok, false);
    assert.deepEqual(dns.asked, ['mixed.example', 'inside.example', 'mapped.example']);
  });

  it('allows a public host and returns the checked addresses, so the connection can be pinned to them', async () => {
    const result = await verdict('https://mcp.example.com/mcp', {
      'mcp.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    });
    assert.deepEqual(result, {
      ok: true,
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    });
  });

  it('refuses other schemes, user info in the URL, and names that do not resolve', async () => {
    const ftp = await verdict('ftp://93.184.216.34/');
    assert.equal(ftp.ok, false);
    assert.match((ftp as { reason: string }).reason, /scheme/);
    assert.equal(
      (await verdict('https://user:pw@mcp.example.com/', { 'mcp.example.com': ['93.184.216.34'] })).ok,
      false,
    );
    const missing = await verdict('https://nowhere.example/');
    assert.equal(missing.ok, false);
    assert.match((missing as { reason: string }).reason, /could not be resolved/);
  });
});

describe('The pinned fetch', () => {
  it('connects to the checked address while the Host header keeps the URL host name', async () => {
    const fixture = await startHttpFixture();
    const pinned = pinnedFetch(async () => ({ ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] }));
    try {
      // This name resolves nowhere: only the pin can reach the server.
      const response = await pinned.fetch(`http://mcp.unresolvable.test:${fixture.port}/other`);
      await response.arrayBuffer();
      assert.equal(fixture.requests.at(-1)?.host, `mcp.unresolvable.test:${fixture.port}`);
    } finally {
      pinned.close();
      await fixture.close();
    }
  });

  it('asks the check for every new origin, such as a redirect target, and refuses what it refuses', async () => {
    const asked: string[] = [];
    const pinned = pinnedFetch(async (url) => {
      asked.push(url.origin);
      return url.hostname === 'evil.test'
        ? { ok: false, reason: 'evil.test is refused' }
        : { ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] };
    });
    try {
      await assert.rejects(
        pinned.fetch('http://evil.test:1/mcp', { method: 'POST', body: '{}', redirect: 'manual' }),
        /evil\.test is refused/,
      );
      await assert.rejects(pinned.fetch('file:///etc/passwd'), /not allowed/);
      assert.deepEqual(asked, ['http://evil.test:1']);
    } finally {
      pinned.close();
    }
  });

  it('returns a redirect to the caller instead of following it', async () => {
    const fixture = await startHttpFixture({ redirectTo: 'http://169.254.169.254/latest' });
    const pinned = pinnedFetch(async () => ({ ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] }));
    try {
      const response = await pinned.fetch(fixture.url, { method: 'POST', body: '{}' });
      assert.equal(response.status, 307);
      assert.equal(response.headers.get('location'), 'http://169.254.169.254/latest');
    } finally {
      pinned.close();
      await fixture.close();
    }
  });
});
