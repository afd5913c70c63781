import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MemoryWindowCounter, type WindowCounter } from '../../src/common/window-counter.js';
import { InstallRateLimit } from '../../src/slack/oauth/install-rate.js';

const MINUTE = 60_000;
const from = (address: string, forwarded?: string) =>
  ({
    socket: { remoteAddress: address },
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  }) as unknown as IncomingMessage;

function setup(perMinute: number, trust: Array<{ address: string; prefix: number; family: 'ipv4' }> = []) {
  let now = 10 * MINUTE + 20_000;
  const counter = new MemoryWindowCounter(() => now);
  const limit = new InstallRateLimit(counter, perMinute, () => now, trust);
  return { limit, counter, tick: (ms: number) => (now += ms) };
}

describe('InstallRateLimit', () => {
  it('counts only successful exchanges: failed callbacks never spend the deployment’s or an address’s installs', async () => {
    const { limit } = setup(4); // 2 per address
    const junk = from('198.51.100.1');
    for (let i = 0; i < 100; i++) {
      expect(await limit.admit(junk)).toEqual({ admitted: true });
      await limit.failed(junk);
    }
    // The same address and another one still install.
    for (const req of [junk, junk, from('198.51.100.2'), from('198.51.100.3')]) {
      expect((await limit.admit(req)).admitted).toBe(true);
      await limit.succeeded(req);
    }
    // Now the deployment's minute is used up, for every address.
    expect(await limit.admit(from('198.51.100.4'))).toMatchObject({ admitted: false });
  });

  it('holds one address to half the minute, and to a generous bound of failures that never touches another address', async () => {
    const { limit } = setup(60);
    const one = from('198.51.100.1');
    for (let i = 0; i < 30; i++) await limit.succeeded(one);
    expect(await limit.admit(one)).toMatchObject({ admitted: false });
    expect((await limit.admit(from('198.51.100.2'))).admitted).toBe(true);

    const noisy = from('203.0.113.9');
    for (let i = 0; i < 119; i++) await limit.failed(noisy);
    expect((await limit.admit(noisy)).admitted).toBe(true);
    await limit.failed(noisy);
    expect(await limit.admit(noisy)).toMatchObject({ admitted: false });
    expect((await limit.admit(from('203.0.113.10'))).admitted).toBe(true);
  });

  it('says when to come back: the next minute, as a time and in seconds; the next minute admits again', async () => {
    const { limit, tick } = setup(1);
    await limit.succeeded(from('198.51.100.1'));
    const refused = await limit.admit(from('198.51.100.2'));
    expect(refused).toEqual({ admitted: false, retryAt: 11 * MINUTE, retryAfterS: 40 });
    tick(40_000);
    expect((await limit.admit(from('198.51.100.2'))).admitted).toBe(true);
  });

  it('counts an IPv6 client by its /64 and a spoofed X-Forwarded-For under the connection without TRUST_PROXY', async () => {
    const { limit } = setup(6); // 3 per address
    for (const host of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3'])
      await limit.succeeded(from(host));
    expect(await limit.admit(from('2001:db8:1:2::99'))).toMatchObject({ admitted: false });
    expect((await limit.admit(from('2001:db8:1:3::1'))).admitted).toBe(true);

    const spoofing = setup(6);
    for (let i = 0; i < 3; i++) await spoofing.limit.succeeded(from('198.51.100.1', `203.0.113.${i}`));
    expect(await spoofing.limit.admit(from('198.51.100.1', '203.0.113.77'))).toMatchObject({
      admitted: false,
    });
    // Behind a trusted proxy the forwarded address is the client.
    const proxied = setup(6, [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' }]);
    for (let i = 0; i < 3; i++) await proxied.limit.succeeded(from('127.0.0.1', '203.0.113.5'));
    expect(await proxied.limit.admit(from('127.0.0.1', '203.0.113.5'))).toMatchObject({ admitted: false });
    expect((await proxied.limit.admit(from('127.0.0.1', '203.0.113.6'))).admitted).toBe(true);
  });

  it('uses a state once, and lets installs through when the store cannot count', async () => {
    const { limit } = setup(1);
    expect(await limit.firstUse('state-a', 600_000)).toBe(true);
    expect(await limit.firstUse('state-a', 600_000)).toBe(false);
    expect(await limit.firstUse('state-b', 600_000)).toBe(true);
    const down: WindowCounter = {
      increment: () => Promise.reject(new Error('down')),
      count: () => Promise.reject(new Error('down')),
    };
    const open = new InstallRateLimit(down, 1, () => 0);
    await open.succeeded(from('198.51.100.1'));
    await open.failed(from('198.51.100.1'));
    expect(await open.admit(from('198.51.100.1'))).toEqual({ admitted: true });
    expect(await open.firstUse('s', 1)).toBe(true);
  });
});
