import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { WeeklySchedule } from '../../src/insights/ports.js';
import { nextOccurrence } from '../../src/insights/ranges/cron-times.js';
import { BullmqWeeklyScheduler } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RedisServer;
const clients: RedisClient[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const client of clients.splice(0)) await closeRedis(client);
  await redis?.stop();
});

/** A "replica": its own queueing connection and scheduler, like the app builds in Redis mode. */
async function replica(namespace: string): Promise<BullmqWeeklyScheduler> {
  const client = await connectRedis(redis.url, logger, { failFast: false });
  clients.push(client);
  return new BullmqWeeklyScheduler({ client, logger, namespace });
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
});
