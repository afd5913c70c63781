import { describe, expect, it } from 'vitest';
import type { HourlyQuota } from '../../src/common/hourly-quota.js';

const HOUR = 60 * 60 * 1000;
const MINUTE = 60 * 1000;

/** Builds a fresh quota (its own budget) on a clock the test controls. */
export type HourlyQuotaFactory = (
  limit: number,
  now: () => number,
) => Promise<{ quota: HourlyQuota; close(): Promise<void> }>;

/** The `HourlyQuota` contract (a rolling hour): every implementation must pass these same tests. */
export function hourlyQuotaContract(create: HourlyQuotaFactory): void {
  async function withQuota(limit: number, test: (quota: HourlyQuota, clock: { t: number }) => Promise<void>) {
    const clock = { t: 1_700_000_000_000 };
    const { quota, close } = await create(limit, () => clock.t);
    try {
      await test(quota, clock);
    } finally {
      await close();
    }
  }

  describe('HourlyQuota contract', () => {
    it('gives out up to the limit, then says when the oldest unit frees', () =>
      withQuota(3, async (quota, clock) => {
        expect(await quota.remaining()).toBe(3);
        expect(await quota.take()).toEqual({ ok: true });
        clock.t += 10 * MINUTE;
        expect(await quota.take()).toEqual({ ok: true });
        expect(await quota.take()).toEqual({ ok: true });
        expect(await quota.remaining()).toBe(0);
        clock.t += 5 * MINUTE;
        expect(await quota.take()).toEqual({ ok: false, retryAfterMs: 45 * MINUTE });
        expect(await quota.remaining()).toBe(0);
      }));

    it('counts a rolling hour, not a fixed window', () =>
      withQuota(2, async (quota, clock) => {
        const start = clock.t;
        await quota.take();
        clock.t = start + 30 * MINUTE;
        await quota.take();
        clock.t = start + HOUR + 1;
        // Only the first unit has left the window.
        expect(await quota.remaining()).toBe(1);
        expect(await quota.take()).toEqual({ ok: true });
        expect(await quota.take()).toEqual({ ok: false, retryAfterMs: 30 * MINUTE - 1 });
        clock.t = start + 30 * MINUTE + HOUR + 1;
        expect(await quota.remaining()).toBe(1);
      }));

    it('takes a refunded unit back', () =>
      withQuota(2, async (quota) => {
        await quota.take();
        await quota.take();
        expect((await quota.take()).ok).toBe(false);
        await quota.refund();
        expect(await quota.remaining()).toBe(1);
        expect(await quota.take()).toEqual({ ok: true });
      }));

    it('takes several units at once, or none of them', () =>
      withQuota(5, async (quota, clock) => {
        expect(await quota.take(3)).toEqual({ ok: true });
        expect(await quota.remaining()).toBe(2);
        clock.t += 10 * MINUTE;
        // 3 do not fit in the 2 left: nothing is taken, and the wait is until the first batch leaves.
        expect(await quota.take(3)).toEqual({ ok: false, retryAfterMs: 50 * MINUTE });
        expect(await quota.remaining()).toBe(2);
        expect(await quota.take(2)).toEqual({ ok: true });
        expect(await quota.remaining()).toBe(0);
        // More than the limit is never granted; the wait is until the whole budget is free.
        expect(await quota.take(6)).toEqual({ ok: false, retryAfterMs: HOUR });
      }));

    it('says how long until N units are free, without taking any', () =>
      withQuota(3, async (quota, clock) => {
        const start = clock.t;
        expect(await quota.waitTime()).toBe(0);
        expect(await quota.waitTime(3)).toBe(0);
        await quota.take();
        clock.t = start + 10 * MINUTE;
        await quota.take(2);
        clock.t = start + 30 * MINUTE;
        expect(await quota.waitTime(1)).toBe(30 * MINUTE);
        expect(await quota.waitTime(2)).toBe(40 * MINUTE);
        expect(await quota.waitTime(3)).toBe(40 * MINUTE);
        // Capped at the limit: the time until the whole budget is free.
        expect(await quota.waitTime(10)).toBe(40 * MINUTE);
        expect(await quota.waitTime(0)).toBe(0);
        expect(await quota.remaining()).toBe(0);
        clock.t = start + HOUR;
        expect(await quota.remaining()).toBe(1);
        expect(await quota.waitTime(1)).toBe(0);
        expect(await quota.waitTime(2)).toBe(10 * MINUTE);
        // A refusal names the same wait.
        expect(await quota.take(2)).toEqual({ ok: false, retryAfterMs: await quota.waitTime(2) });
      }));

    it('never gives out more than the limit to concurrent batch takers', () =>
      withQuota(10, async (quota) => {
        const results = await Promise.all(Array.from({ length: 6 }, () => quota.take(3)));
        expect(results.filter((r) => r.ok)).toHaveLength(3);
        expect(await quota.remaining()).toBe(1);
      }));

    it('never gives out more than the limit to concurrent takers', () =>
      withQuota(5, async (quota) => {
        const results = await Promise.all(Array.from({ length: 12 }, () => quota.take()));
        expect(results.filter((r) => r.ok)).toHaveLength(5);
        expect(await quota.remaining()).toBe(0);
      }));
  });
}
