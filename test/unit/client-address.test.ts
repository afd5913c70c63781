import { describe, expect, it } from 'vitest';
import {
  clientAddress,
  ProxyTrust,
  parseAddress,
  parseTrustedProxies,
  UNKNOWN_ADDRESS,
} from '../../src/common/client-address.js';
import { loadConfig } from '../../src/common/config.js';

const trust = (text: string) => {
  const parsed = parseTrustedProxies(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new ProxyTrust(parsed.proxies);
};
const none = new ProxyTrust([]);

describe('client address (per-address install limits)', () => {
  it('without TRUST_PROXY: the socket’s address, whatever X-Forwarded-For says', () => {
    expect(clientAddress('198.51.100.7', '203.0.113.1', none)).toBe('198.51.100.7');
    expect(clientAddress('198.51.100.7', ['1.1.1.1', '2.2.2.2'], none)).toBe('198.51.100.7');
    expect(clientAddress('198.51.100.7', 'not-an-ip', none)).toBe('198.51.100.7');
  });

  it('with TRUST_PROXY: the right-most forwarded address that is not a trusted proxy', () => {
    const proxies = trust('172.30.44.10, 10.0.0.0/8');
    // Caddy (trusted) connected; it saw 203.0.113.5, whatever the client wrote to the left.
    expect(clientAddress('172.30.44.10', '6.6.6.6, 203.0.113.5', proxies)).toBe('203.0.113.5');
    // Two trusted hops (a load balancer in 10/8 behind Caddy).
    expect(clientAddress('172.30.44.10', '6.6.6.6, 203.0.113.5, 10.1.2.3', proxies)).toBe('203.0.113.5');
    // Several headers are one list, in order.
    expect(clientAddress('172.30.44.10', ['6.6.6.6', '203.0.113.5'], proxies)).toBe('203.0.113.5');
    // A connection that is not a trusted proxy: its own address, the header ignored.
    expect(clientAddress('198.51.100.7', '203.0.113.5', proxies)).toBe('198.51.100.7');
    // No header: the proxy itself.
    expect(clientAddress('172.30.44.10', undefined, proxies)).toBe('172.30.44.10');
  });

  it('garbage in X-Forwarded-For never switches counting off: the walk stops at the last address read', () => {
    const proxies = trust('172.30.44.10');
    for (const header of [
      'junk',
      '',
      ' , ',
      'x'.repeat(10_000),
      '203.0.113.5:443',
      '::ffff:zz',
      '1.2.3.4.5',
    ]) {
      expect(clientAddress('172.30.44.10', header, proxies)).toBe('172.30.44.10');
    }
    // Junk to the left of the proxy's own entry is never reached.
    expect(clientAddress('172.30.44.10', 'junk, 203.0.113.5', proxies)).toBe('203.0.113.5');
    // A header longer than what is read: only its end counts.
    expect(clientAddress('172.30.44.10', `${'9.9.9.9,'.repeat(5_000)}203.0.113.5`, proxies)).toBe(
      '203.0.113.5',
    );
    // A socket with no address (closed) is counted too, under one shared bucket.
    expect(clientAddress(undefined, '203.0.113.5', proxies)).toBe(UNKNOWN_ADDRESS);
    expect(clientAddress('', undefined, none)).toBe(UNKNOWN_ADDRESS);
  });

  it('counts an IPv6 address by its /64, and an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(clientAddress('2001:db8:1:2:aaaa::1', undefined, none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:2:ffff:ffff:ffff:ffff', undefined, none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:0DB8:0001:0002::9%eth0', undefined, none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('::1', undefined, none)).toBe('0:0:0:0::/64');
    expect(clientAddress('::ffff:198.51.100.7', undefined, none)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:c633:6407', undefined, none)).toBe('198.51.100.7');
    // A mapped socket address is matched against an IPv4 TRUST_PROXY entry.
    expect(clientAddress('::ffff:127.0.0.1', '2001:db8:9:9::5', trust('127.0.0.1'))).toBe(
      '2001:db8:9:9::/64',
    );
    expect(clientAddress('fd00::1', '203.0.113.5', trust('fd00::/8'))).toBe('203.0.113.5');
    expect(parseAddress('1::2::3')).toBeUndefined();
  });

  it('TRUST_PROXY takes addresses and CIDR ranges, and refuses anything else by name', () => {
    expect(parseTrustedProxies(' 172.30.44.10 , 10.0.0.0/8,fd00::/8 ')).toEqual({
      ok: true,
      proxies: [
        { address: '172.30.44.10', prefix: 32, family: 'ipv4' },
        { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { address: 'fd00::', prefix: 8, family: 'ipv6' },
      ],
    });
    for (const bad of [
      '1',
      'caddy',
      '10.0.0.0/33',
      '10.0.0.0/8/8',
      'fd00::/129',
      '10.0.0.0/-1',
      'fe80::1%eth0',
    ]) {
      expect(parseTrustedProxies(bad)).toMatchObject({ ok: false });
    }
  });
});

describe('TRUST_PROXY in the config', () => {
  const oauth = {
    SLACK_CLIENT_ID: '1.2',
    SLACK_CLIENT_SECRET: 'secret',
    SLACK_STATE_SECRET: 'state-secret-0123456789abcdef0123456789',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    SLACK_SIGNING_SECRET: 'signing',
  };
  it('is empty by default and lists the proxies when set; a bad entry is one of the config problems', () => {
    expect(loadConfig(oauth).oauth?.trustProxy).toEqual([]);
    expect(loadConfig({ ...oauth, TRUST_PROXY: '172.30.44.10' }).oauth?.trustProxy).toEqual([
      { address: '172.30.44.10', prefix: 32, family: 'ipv4' },
    ]);
    expect(() => loadConfig({ ...oauth, TRUST_PROXY: 'caddy' })).toThrow(/TRUST_PROXY/);
  });
});
