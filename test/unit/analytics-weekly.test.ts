import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { PageViewsReports } from '../../src/insights/page-views/page-views-reports.js';
import type { ReportRequest } from '../../src/insights/page-views/report.js';
import { MISSED_POST_GRACE_MS, WeeklyReports } from '../../src/insights/weekly/weekly-reports.js';
import { createMemoryScheduleStore, type KeyvScheduleStore } from '../../src/state/keyv-schedule-store.js';
import { InProcessWeeklyScheduler } from '../../src/state/memory/weekly-cron-scheduler.js';
import { ManualTimers } from '../support/manual-timers.js';

function setup(
  timers: ManualTimers,
  store?: KeyvScheduleStore,
  failures = { left: 0, tries: [] as number[] },
) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    secrets: [],
    destination: { write: (l: string) => lines.push(l) },
  });
  const published: Array<{ channelId: string; request: ReportRequest }> = [];
  const analytics = {
    requestFor: (_params: unknown, timeZone: string, nowMs: number): ReportRequest => {
      const day = new Date(nowMs).toLocaleDateString('en-CA', { timeZone });
      return {
        range: { from: 'x', toExclusive: day },
        label: 'Last 7 days',
        timeZone,
        top: 10,
        prefix: undefined,
      };
    },
    publish: async (channelId: string, request: ReportRequest) => {
      failures.tries.push(timers.now());
      if (failures.left > 0) {
        failures.left -= 1;
        throw new Error('docs API unavailable');
      }
      published.push({ channelId, request });
    },
  } as unknown as PageViewsReports;
  const schedules = store ?? createMemoryScheduleStore(logger, timers.now);
  const weekly = new WeeklyReports({
    analytics,
    health: { publishWeekly: async () => undefined },
    store: schedules,
    scheduler: new InProcessWeeklyScheduler(logger, timers),
    clock: { now: timers.now },
    logger,
  });
  return { weekly, published, store: schedules, lines };
}

const at = (iso: string) => Date.parse(iso);

describe('weekly reports', () => {
  it('posts at 09:00 local time each week across a DST change, once per occurrence', async () => {
    const timers = new ManualTimers(at('2025-03-20T10:00:00Z'));
    const { weekly, published } = setup(timers);
    await weekly.start();
    const { nextRun } = await weekly.schedule({
      channelId: 'C1',
      userId: 'U1',
      weekday: 1,
      hour: 9,
      minute: 0,
      timeZone: 'Europe/Berlin',
    });
    expect(nextRun).toBe(at('2025-03-24T08:00:00Z'));
    await timers.advanceTo(at('2025-03-24T07:59:59Z'));
    expect(published).toHaveLength(0);
    await timers.advanceTo(at('2025-03-24T08:30:00Z'));
    expect(published).toHaveLength(1);
    expect(published[0]!.request.range.toExclusive).toBe('2025-03-24');
    // After the switch to summer time, 09:00 in Berlin is 07:00 UTC.
    await timers.advanceTo(at('2025-03-31T06:59:00Z'));
    expect(published).toHaveLength(1);
    await timers.advanceTo(at('2025-03-31T07:00:00Z'));
    expect(published).toHaveLength(2);
    await timers.advanceTo(at('2025-04-01T00:00:00Z'));
    expect(published).toHaveLength(2);
    await weekly.stop();
  });

  it('posts each occurrence once even when two instances share the store', async () => {
    const timers = new ManualTimers(at('2025-03-20T10:00:00Z'));
    const a = setup(timers);
    const b = setup(timers, a.store);
    await a.weekly.start();
    await a.weekly.schedule({
      channelId: 'C1',
      userId: 'U1',
      weekday: 1,
      hour: 9,
      minute: 0,
      timeZone: 'UTC',
    });
    await b.weekly.start();
    await timers.advanceTo(at('2025-03-24T09:05:00Z'));
    expect(a.published.length + b.published.length).toBe(1);
    expect(await a.weekly.fire((await a.store.get('C1'))!, at('2025-03-24T09:00:00Z'))).toBe(
      'already_posted',
    );
  });

  it('sends a post missed while down if it is less than the grace late, otherwise skips it with a log line', async () => {
    const store = createMemoryScheduleStore(createLogger({ level: 'silent', secrets: [] }), () => 0);
    await store.put({
      channelId: 'C1',
      cron: '0 9 * * 1',
      timeZone: 'UTC',
      createdBy: 'U1',
      createdAt: at('2025-03-01T00:00:00Z'),
      source: 'command',
    });
    const late = setup(new ManualTimers(at('2025-03-24T10:30:00Z')), store);
    await late.weekly.start();
    expect(late.published).toHaveLength(1);
    expect(late.lines.join('')).toContain('sent a missed weekly report');
    await late.weekly.stop();

    const tooLate = setup(
      new ManualTimers(at('2025-03-24T09:00:00Z') + MISSED_POST_GRACE_MS + 60_000),
      store,
    );
    await store.release(`weekly:C1:${at('2025-03-24T09:00:00Z')}`);
    await tooLate.weekly.start();
    expect(tooLate.published).toHaveLength(0);
    expect(tooLate.lines.join('')).toContain('too late to post');
  });

  it('a replica that died holding an occurrence does not cost the week: another posts it once the hold lapses', async () => {
    const timers = new ManualTimers(at('2025-03-20T10:00:00Z'));
    const b = setup(timers);
    await b.weekly.start();
    await b.weekly.schedule({
      channelId: 'C1',
      userId: 'U1',
      weekday: 1,
      hour: 9,
      minute: 0,
      timeZone: 'UTC',
    });
    const occurrence = at('2025-03-24T09:00:00Z');
    // Replica A took the occurrence at 09:00 and died before owing the post (its hold is 2 minutes).
    await timers.advanceTo(occurrence - 1);
    expect(await b.store.claim(`weekly:C1:${occurrence}`, 2 * 60_000)).toBe(true);
    await timers.advanceTo(occurrence + 60_000);
    expect(b.published).toHaveLength(0);
    await timers.advanceTo(occurrence + 5 * 60_000);
    expect(b.published).toHaveLength(1);
    await timers.advanceTo(at('2025-03-25T00:00:00Z'));
    expect(b.published).toHaveLength(1);
    await b.weekly.stop();
  });

  it('stops posting after unschedule and lists what is scheduled', async () => {
    const timers = new ManualTimers(at('2025-03-20T10:00:00Z'));
    const { weekly, published } = setup(timers);
    await weekly.start();
    await weekly.schedule({ channelId: 'C1', userId: 'U1', weekday: 1, hour: 9, minute: 0, timeZone: 'UTC' });
    expect((await weekly.list()).map((s) => s.channelId)).toEqual(['C1']);
    expect(await weekly.unschedule('C1')).toBe(true);
    expect(await weekly.unschedule('C1')).toBe(false);
    await timers.advanceTo(at('2025-03-25T00:00:00Z'));
    expect(published).toHaveLength(0);
  });

  it('retries a failed post with backoff inside the grace period, then posts it once', async () => {
    const timers = new ManualTimers(at('2025-03-20T10:00:00Z'));
    const failures = { left: 3, tries: [] as number[] };
    const { weekly, published, lines } = setup(timers, undefined, failures);
    await weekly.start();
    await weekly.schedule({ channelId: 'C1', userId: 'U1', weekday: 1, hour: 9, minute: 0, timeZone: 'UTC' });
    await timers.advanceTo(at('2025-03-24T09:30:00Z'));
    expect(published).toHaveLength(1);
    expect(published[0]!.request.range.toExclusive).toBe('2025-03-24');
    // 09:00, then 1, 1 and 2 minutes later (each wait as long as the post is already late).
    expect(failures.tries.map((t) => (t - at('2025-03-24T09:00:00Z')) / 60_000)).toEqual([0, 1, 2, 4]);
    expect(lines.join('')).toContain('weekly page-view report failed; retrying');
    await timers.advanceTo(at('2025-03-25T00:00:00Z'));
    expect(published).toHaveLength(1);
    await weekly.stop();
  });

  it('stops retrying when the grace period is over, and says so', async () => {
    const timers = new ManualTimers(at('2025-03-20T10:00:00Z'));
    const failures = { left: 1_000, tries: [] as number[] };
    const { weekly, published, lines } = setup(timers, undefined, failures);
    await weekly.start();
    await weekly.schedule({ channelId: 'C1', userId: 'U1', weekday: 1, hour: 9, minute: 0, timeZone: 'UTC' });
    await timers.advanceTo(at('2025-03-25T00:00:00Z'));
    expect(published).toHaveLength(0);
    const occurrence = at('2025-03-24T09:00:00Z');
    expect(failures.tries.length).toBeGreaterThan(5);
    expect(Math.max(...failures.tries) - occurrence).toBeLessThanOrEqual(MISSED_POST_GRACE_MS);
    expect(lines.join('')).toContain("its grace period is over, so this week's post is skipped");
    await weekly.stop();
  });
});
