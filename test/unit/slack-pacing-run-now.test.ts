import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlackPacing } from '../../src/slack/slack-pacing.js';

/*
 * A form's history read waits up to a second for its slot (an internal app's pace), and a read promised a
 * slot must get it. The review button's second click was refused for a slot 1 ms away when its timer fired
 * before Date.now() reached the slot (test/integration/review-button-pace.test.ts, about 1 run in 30), and
 * a paced read queued during that wait took the slot from it.
 */
describe('SlackPacing.runNow: a form read promised its slot within the wait', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** 100 history reads a minute (twice an internal app's tier): one slot every 630 ms. */
  const internal = () => new SlackPacing({ appTier: 'internal', tierRatePercent: 200 });

  it('runs even when its timer fires before the wall clock reaches the slot', async () => {
    const pacing = internal();
    expect(await pacing.runNow('conversations.history', 'C1', async () => 'first')).toBe('first');
    const second = pacing.runNow('conversations.history', 'C1', async () => 'second');
    // Node's timers run on the monotonic clock, Date.now() on the wall clock: here the wall clock is 1 ms behind.
    vi.setSystemTime(Date.now() - 1);
    await vi.advanceTimersByTimeAsync(630);
    await expect(second).resolves.toBe('second');
    pacing.close();
  });

  it('keeps its slot from a paced read queued while it waits, which goes after it', async () => {
    const pacing = internal();
    const t0 = Date.now();
    const ranAt: Record<string, number> = {};
    const read = (name: string) => async () => {
      ranAt[name] = Date.now() - t0;
      return name;
    };
    await pacing.runNow('conversations.history', 'C1', read('first form'));
    const second = pacing.runNow('conversations.history', 'C1', read('second form'));
    const sweep = pacing.run('conversations.history', 'C1', 'refresh', read('sweep'));
    await vi.advanceTimersByTimeAsync(1260);
    expect(await Promise.all([second, sweep])).toEqual(['second form', 'sweep']);
    expect(ranAt).toEqual({ 'first form': 0, 'second form': 630, sweep: 1260 });
    pacing.close();
  });

  it('refuses at once, taking nothing, when the next free slot is past the wait', async () => {
    const pacing = internal();
    await pacing.runNow('conversations.history', 'C1', async () => 'first');
    const second = pacing.runNow('conversations.history', 'C1', async () => 'second');
    // The slot after the second's is 1,260 ms away, past the second's wait.
    await expect(pacing.runNow('conversations.history', 'C1', async () => 'third')).rejects.toMatchObject({
      code: 'slack_budget_spent',
    });
    await vi.advanceTimersByTimeAsync(630);
    await expect(second).resolves.toBe('second');
    // The refused click took nothing: the next slot is 630 ms after the second's.
    await vi.advanceTimersByTimeAsync(629);
    const fourth = pacing.runNow('conversations.history', 'C1', async () => 'fourth', 0);
    await expect(fourth).rejects.toMatchObject({ code: 'slack_budget_spent' });
    await vi.advanceTimersByTimeAsync(1);
    expect(await pacing.runNow('conversations.history', 'C1', async () => 'fifth', 0)).toBe('fifth');
    pacing.close();
  });
});
