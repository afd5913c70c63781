import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { PageViewsReports } from '../../src/insights/page-views/page-views-reports.js';
import type { WeeklySchedule } from '../../src/insights/ports.js';
import { nextOccurrence } from '../../src/insights/ranges/cron-times.js';
import { WeeklyReports } from '../../src/insights/weekly/weekly-reports.js';
import { createMemoryScheduleStore } from '../../src/state/keyv-schedule-store.js';
import {
  BullmqWeeklyScheduler,
  cronerRepeatStrategy,
} from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { singlePlaneView } from '../support/single-plane-view.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const redis = redisForReplicas();

/**
 * A "replica": its own queueing connection, its plane and the scheduler view, like the app builds in Redis
 * mode (single-workspace); its stop also closes its plane (the replica goes away).
 */
async function replica(namespace: string): Promise<BullmqWeeklyScheduler> {
  const client = await redis.replica({ failFast: false });
  const own = singlePlaneView(client, namespace);
  const scheduler = new BullmqWeeklyScheduler({ client, logger, namespace, plane: own.plane });
  const stop = scheduler.stop.bind(scheduler);
  scheduler.stop = async () => {
    await stop();
    await own.close();
  };
  return scheduler;
}

function schedule(channelId: string, cron: string, timeZone = 'UTC'): WeeklySchedule {
  return { channelId, cron, timeZone, createdBy: 'U1', createdAt: 0, source: 'command' };
}

describe('BullMQ weekly report scheduler', () => {
  it('runs each occurrence on exactly one of two replicas, at croner occurrence times', async () => {
    const a = await replica('ns-once');
    const b = await replica('ns-once');
    const fired: Array<{ by: string; channelId: string; occurrence: number; at: number }> = [];
    const handler = (by: string) => async (s: WeeklySchedule, occurrence: number) => {
      fired.push({ by, channelId: s.channelId, occurrence, at: Date.now() });
    };
    await a.start(handler('a'));
    await b.start(handler('b'));
    // Every second (croner and BullMQ both read the optional seconds field), upserted by both replicas.
    const everySecond = schedule('C1', '* * * * * *');
    await a.upsert(everySecond);
    await b.upsert(everySecond);
    await waitFor(() => fired.length >= 4, { what: 'four occurrences', timeoutMs: 8_000 });
    await a.stop();
    await b.stop();

    const occurrences = fired.map((f) => f.occurrence);
    expect(new Set(occurrences).size).toBe(occurrences.length);
    for (const f of fired) {
      expect(f.channelId).toBe('C1');
      expect(f.occurrence % 1000).toBe(0);
      expect(f.at).toBeGreaterThanOrEqual(f.occurrence);
    }
  });

  it('keeps one scheduler per channel in Redis, on the schedule time zone, replaced by upsert and gone on remove', async () => {
    const a = await replica('ns-tz');
    const b = await replica('ns-tz');
    await a.start(async () => undefined);
    const berlin = schedule('C2', '0 9 * * 1', 'Europe/Berlin');
    await a.upsert(berlin);
    await b.upsert(berlin);
    await a.upsert(schedule('C3', '30 7 * * 5', 'America/New_York'));
    const now = Date.now();
    let runs = await b.nextRuns();
    expect([...runs.keys()].sort()).toEqual(['C2', 'C3']);
    expect(runs.get('C2')).toBe(nextOccurrence('0 9 * * 1', 'Europe/Berlin', now));
    expect(runs.get('C3')).toBe(nextOccurrence('30 7 * * 5', 'America/New_York', now));

    // Re-scheduling the channel replaces its scheduler.
    await b.upsert(schedule('C2', '0 8 * * 2', 'Asia/Tokyo'));
    runs = await a.nextRuns();
    expect(runs.get('C2')).toBe(nextOccurrence('0 8 * * 2', 'Asia/Tokyo', Date.now()));
    expect(runs.size).toBe(2);

    await b.remove('C2');
    expect([...(await a.nextRuns()).keys()]).toEqual(['C3']);
    await a.stop();
    await b.stop();
  });

  it('fires nothing after a schedule is removed', async () => {
    const a = await replica('ns-remove');
    const fired: number[] = [];
    await a.start(async (_s, occurrence) => {
      fired.push(occurrence);
    });
    await a.upsert(schedule('C4', '* * * * * *'));
    await waitFor(() => fired.length >= 1, { what: 'first occurrence', timeoutMs: 5_000 });
    await a.remove('C4');
    const count = fired.length;
    await sleep(2_200);
    expect(fired.length).toBeLessThanOrEqual(count + 1);
    expect((await a.nextRuns()).size).toBe(0);
    await a.stop();
  });

  it('computes next runs with croner: DST-start days with a time in the gap, and Lord_Howe, keep their week', () => {
    // Sunday 00:30 falls in the DST gap on these days; BullMQ's own parser skipped to the following week.
    const gapDays: Array<[string, string, string]> = [
      ['America/Santiago', '2026-09-01T00:00:00Z', '2026-09-06T04:30:00.000Z'],
      ['America/Havana', '2026-03-02T00:00:00Z', '2026-03-08T05:30:00.000Z'],
      ['Asia/Beirut', '2026-03-23T00:00:00Z', '2026-03-28T22:30:00.000Z'],
    ];
    for (const [timeZone, from, expected] of gapDays) {
      const next = cronerRepeatStrategy(Date.parse(from), { pattern: '30 0 * * 0', tz: timeZone });
      expect(new Date(next!).toISOString(), timeZone).toBe(expected);
    }
    // Lord Howe's half-hour DST end: BullMQ's parser threw here (and the schedule stopped for good).
    let at = Date.parse('2027-03-20T00:00:00Z');
    for (let week = 0; week < 4; week++) {
      const next = cronerRepeatStrategy(at, { pattern: '0 2 * * 0', tz: 'Australia/Lord_Howe' });
      expect(next).toBe(nextOccurrence('0 2 * * 0', 'Australia/Lord_Howe', at));
      at = next!;
    }
  });

  it('stores croner next runs in Redis for times in a DST gap or overlap (upserted and after a firing)', async () => {
    const a = await replica('ns-dst');
    // Date-pinned patterns whose next occurrence (from now) is a DST-start day at a time in the gap, or
    // Lord Howe's DST end at 02:00 (BullMQ's parser gave the year after, or nothing at all).
    const pinned: Array<[string, string, string]> = [
      ['C5', '30 0 5 9 *', 'America/Santiago'],
      ['C6', '30 0 14 3 *', 'America/Havana'],
      ['C7', '30 0 28 3 *', 'Asia/Beirut'],
      ['C8', '0 2 4 4 *', 'Australia/Lord_Howe'],
    ];
    for (const [channel, cron, timeZone] of pinned) await a.upsert(schedule(channel, cron, timeZone));
    const now = Date.now();
    const runs = await a.nextRuns();
    for (const [channel, cron, timeZone] of pinned) {
      expect(runs.get(channel), `${channel} ${timeZone}`).toBe(nextOccurrence(cron, timeZone, now));
    }

    // The worker schedules the occurrence after a firing: one a few seconds from now, the next one on Lord
    // Howe's DST-end night at 02:00 (the cross product of the lists below).
    const fired: number[] = [];
    await a.start(async (_s, occurrence) => {
      fired.push(occurrence);
    });
    const soon = new Date(Date.now() + 4_000);
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Australia/Lord_Howe',
      hourCycle: 'h23',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      day: 'numeric',
      month: 'numeric',
    }).formatToParts(soon);
    const part = (type: string) => Number(local.find((p) => p.type === type)!.value);
    const cron = `${part('second')} ${part('minute')},0 ${part('hour')},2 ${part('day')},4 ${part('month')},4 *`;
    await a.upsert(schedule('C9', cron, 'Australia/Lord_Howe'));
    await waitFor(() => fired.length >= 1, { what: 'the first occurrence', timeoutMs: 15_000 });
    await waitFor(async () => (await a.nextRuns()).get('C9') !== fired[0], {
      what: 'the next occurrence scheduled',
      timeoutMs: 5_000,
    }).catch(() => undefined);
    const next = (await a.nextRuns()).get('C9');
    expect(next).toBe(nextOccurrence(cron, 'Australia/Lord_Howe', fired[0]!));
    await a.stop();
  });

  it('retries a failed occurrence on any replica, from Redis, until it is posted', async () => {
    const a = await replica('ns-retry');
    const b = await replica('ns-retry');
    const store = createMemoryScheduleStore(logger);
    const tries: string[] = [];
    const posted: number[] = [];
    /** One app instance's weekly reports on its own BullMQ scheduler; the first post anywhere fails. */
    const reports = (by: string, scheduler: BullmqWeeklyScheduler) =>
      new WeeklyReports({
        analytics: {
          requestFor: () => ({}),
          publish: async () => {
            tries.push(by);
            if (tries.length === 1) throw new Error('docs API unavailable');
            posted.push(Date.now());
          },
        } as unknown as PageViewsReports,
        health: { publishWeekly: async () => undefined },
        store,
        scheduler,
        clock: { now: () => Date.now() },
        logger,
        retryMinMs: 300,
      });
    const weeklyA = reports('a', a);
    const weeklyB = reports('b', b);
    const monday = schedule('C10', '0 9 * * 1');
    await store.put(monday);
    // Replica A fires an occurrence (as its worker would), the post fails, and A goes away.
    const occurrence = Date.now() - 200;
    await weeklyA.fireOnTime(monday, occurrence);
    await a.stop();
    expect(posted).toHaveLength(0);
    // Replica B's worker runs the retry A left in Redis.
    await b.start((s, at) => weeklyB.fireOnTime(s, at));
    await waitFor(() => posted.length === 1, { what: 'the retried post', timeoutMs: 10_000 });
    expect(tries).toEqual(['a', 'b']);
    await sleep(1_000);
    expect(posted).toHaveLength(1);
    await b.stop();
  });
});
