import { afterEach, describe, expect, it, vi } from 'vitest';
import { singleUseStateStore } from '../../src/slack/oauth/installer.js';

/**
 * An install link's state: signed, on the injected clock, used once. Two links made at the same moment are two
 * states, whatever Math.random says (@slack/oauth's own state holds only the time and one of a million
 * random numbers: a clock held still in a test, or two visitors in one millisecond, could share one).
 */
describe('the install links’ state', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const usedOnce = () => {
    const seen = new Set<string>();
    return { firstUse: async (state: string) => !seen.has(state) && Boolean(seen.add(state)) };
  };
  const options = { scopes: ['commands', 'chat:write'], metadata: 'from-home' };

  it('two links made at the same moment, with the same random number, are two states, each accepted once', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const store = singleUseStateStore('s3cret-state-secret-for-tests', () => 1_765_000_000_000, usedOnce());
    const first = await store.generateStateParam(options, new Date());
    const second = await store.generateStateParam(options, new Date());
    expect(second).not.toBe(first);
    // Both people's callbacks go through, and each gets back the options its link was made with.
    expect(await store.verifyStateParam(new Date(), first)).toEqual(options);
    expect(await store.verifyStateParam(new Date(), second)).toEqual(options);
    await expect(store.verifyStateParam(new Date(), first)).rejects.toThrow('already used');
  });

  it('refuses a state signed with another secret, and one older than ten minutes on the injected clock', async () => {
    let now = 1_765_000_000_000;
    const store = singleUseStateStore('s3cret-state-secret-for-tests', () => now, usedOnce());
    const other = singleUseStateStore('another-secret-entirely-000000', () => now, usedOnce());
    const forged = await other.generateStateParam(options, new Date());
    await expect(store.verifyStateParam(new Date(), forged)).rejects.toThrow();
    const state = await store.generateStateParam(options, new Date());
    now += 11 * 60_000;
    await expect(store.verifyStateParam(new Date(), state)).rejects.toThrow('expired');
  });
});
