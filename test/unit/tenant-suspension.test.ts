import { describe, expect, it } from 'vitest';
import { holdNotice } from '../../src/composition/oauth/tenant-holds.js';
import { afterCheck, refusalCounts, suspension } from '../../src/composition/oauth/token-refusals.js';

const HOUR = 60 * 60 * 1000;

describe('a suspended tenant’s checks (issue 36)', () => {
  it('checks again after 30 s, then doubling, never further apart than a quarter of the window', () => {
    let hold = suspension(0, 'invalid_auth', 3 * HOUR);
    expect(hold.nextCheckAt).toBe(30_000);
    const gaps: number[] = [];
    for (let i = 0; i < 12; i++) {
      const now = hold.nextCheckAt;
      const decided = afterCheck(hold, undefined, now, 3 * HOUR);
      if (decided.next !== 'wait') throw new Error(decided.next);
      gaps.push(decided.hold.nextCheckAt - now);
      hold = decided.hold;
    }
    expect(gaps.slice(0, 4)).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(Math.max(...gaps)).toBe((3 * HOUR) / 4);
  });

  it('a short window checks sooner (an eighth of it first)', () => {
    expect(suspension(0, 'invalid_auth', 4_000).nextCheckAt).toBe(500);
  });

  it('accepted: lifted; refused before the window ends: waits; refused at its end: uninstalled; no answer never uninstalls', () => {
    const hold = suspension(0, 'token_revoked', HOUR);
    expect(afterCheck(hold, true, HOUR * 2, HOUR)).toEqual({ next: 'lift' });
    expect(afterCheck(hold, false, HOUR - 1, HOUR).next).toBe('wait');
    expect(afterCheck(hold, false, HOUR, HOUR)).toEqual({ next: 'uninstall' });
    expect(afterCheck(hold, undefined, HOUR * 5, HOUR).next).toBe('wait');
  });

  it('not_authed (no token reached Slack) never counts as a refusal', () => {
    expect(refusalCounts('not_authed')).toBe(false);
    expect(refusalCounts('invalid_auth')).toBe(true);
  });

  it('people are told what happened and how to fix it, for each hold', () => {
    expect(holdNotice({ state: 'needs_reinstall', since: 0, reason: 'x' })).toContain('*Add to Slack* again');
    expect(holdNotice(suspension(0, 'invalid_auth', HOUR))).toContain('Nothing is lost');
  });
});
