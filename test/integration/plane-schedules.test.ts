import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { WeeklySchedule } from '../../src/insights/ports.js';
import { BullmqAlertScheduler } from '../../src/state/redis/bullmq-alert-scheduler.js';
import { BullmqImpactQueue } from '../../src/state/redis/bullmq-impact-queue.js';
import { BullmqWeeklyScheduler } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { createQueuePlane, type QueuePlane, type WakeResult } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { impactCheck } from '../support/impact-check.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/*
 * Issue 34: impact checks, weekly posts and alert checks as per-tenant views over the shared QueuePlane. A
 * view that is not registered when its job fires is woken (the stub `wake` builds and starts the tenant's
 * view, as TenantRuntimes.wake builds its scope); two planes (two replicas) run each occurrence once.
 */

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const redis = redisForReplicas();
const planes: QueuePlane[] = [];
const stops: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const plane of planes.splice(0)) await plane.close();
});

interface Fired {
  by: string;
  tenant: string;
  what: string;
}

/**
 * A "replica": its plane on its own connection, whose wake builds the tenant's view with `build` and starts
 * it (registering its processor), for the tenants in `installed`; any other tenant is gone.
 */
async function replica(
  name: string,
  prefix: string,
  installed: string[],
  build: (plane: QueuePlane, tenant: string, by: string) => Promise<() => Promise<void>>,
  woken: string[],
): Promise<QueuePlane> {
  const client = await redis.replica({ failFast: false });
  const plane: QueuePlane = createQueuePlane({
    client,
    logger,
    prefix,
    wake: async (tenant): Promise<WakeResult> => {
      if (!installed.includes(tenant)) return 'gone';
      woken.push(`${name}:${tenant}`);
      stops.push(await build(plane, tenant, name));
      return 'served';
    },
  });
  planes.push(plane);
  plane.start();
  return plane;
}

function producerClient(): Promise<RedisClient> {
  return redis.replica({ failFast: false });
}

function weekly(channelId: string): WeeklySchedule {
  return {
    channelId,
    cron: '* * * * * *',
    timeZone: 'UTC',
    createdBy: 'U1',
    createdAt: 0,
    source: 'command',
  };
}

describe('schedules and impact checks on the shared plane', () => {
  it('a weekly post fires for a tenant not registered at fire time (woken), once across two replicas; stop keeps the schedule; a gone tenant’s scheduler is removed', async () => {
    const prefix = `p-${randomUUID()}`;
    const fired: Fired[] = [];
    const woken: string[] = [];
    const build = async (plane: QueuePlane, tenant: string, by: string) => {
      const view = new BullmqWeeklyScheduler({
        client: await producerClient(),
        logger,
        plane: { plane, tenant },
      });
      await view.start(async (s, occurrence) => {
        fired.push({ by, tenant, what: `${s.channelId}@${occurrence}` });
      });
      return () => view.stop();
    };
    const a = await replica('a', prefix, ['T1'], build, woken);
    await replica('b', prefix, ['T1'], build, woken);
    // The tenant's scope set the schedule and was evicted: nothing of it is registered anywhere.
    const scope = new BullmqWeeklyScheduler({
      client: await producerClient(),
      logger,
      plane: { plane: a, tenant: 'T1' },
    });
    await scope.upsert(weekly('C1'));
    await scope.stop();
    const gone = new BullmqWeeklyScheduler({
      client: await producerClient(),
      logger,
      plane: { plane: a, tenant: 'TGONE' },
    });
    await gone.upsert(weekly('C9'));

    await waitFor(() => fired.length >= 4, { what: 'four occurrences', timeoutMs: 15_000 });
    expect(woken.length).toBeGreaterThanOrEqual(1);
    const occurrences = fired.map((f) => f.what);
    expect(new Set(occurrences).size).toBe(occurrences.length);
    expect(fired.every((f) => f.tenant === 'T1')).toBe(true);
    // Stopping a view only unregisters: the schedule stays (and fires, waking the tenant again).
    for (const stop of stops.splice(0)) await stop();
    expect([...(await scope.nextRuns()).keys()]).toEqual(['C1']);
    await waitFor(async () => (await gone.nextRuns()).size === 0, {
      what: 'the gone tenant’s scheduler removed',
    });
    await scope.remove('C1');
  }, 30_000);

  it('an alert check fires for a tenant not registered at fire time, once per interval across two replicas; disarm removes it', async () => {
    const prefix = `p-${randomUUID()}`;
    const fired: Fired[] = [];
    const woken: string[] = [];
    const view = async (plane: QueuePlane, tenant: string) =>
      new BullmqAlertScheduler({
        client: await producerClient(),
        logger,
        intervalMs: 1000,
        plane: { plane, tenant },
      });
    const build = async (plane: QueuePlane, tenant: string, by: string) => {
      const v = await view(plane, tenant);
      await v.start(async (tickMs) => {
        fired.push({ by, tenant, what: String(tickMs) });
      });
      return () => v.stop();
    };
    const a = await replica('a', prefix, ['T1', 'T2'], build, woken);
    await replica('b', prefix, ['T1', 'T2'], build, woken);
    const scope = await view(a, 'T1');
    await scope.arm();
    await scope.stop();

    await waitFor(() => fired.length >= 3, { what: 'three checks', timeoutMs: 15_000 });
    expect(woken.length).toBeGreaterThanOrEqual(1);
    const ticks = fired.map((f) => f.what);
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(fired.every((f) => f.tenant === 'T1')).toBe(true);
    await scope.disarm();
    const count = fired.length;
    await sleep(2_200);
    expect(fired.length).toBeLessThanOrEqual(count + 1);
  }, 30_000);

  it('an impact check enqueued by two replicas runs once for a tenant woken at its due time, and is retried in place', async () => {
    const prefix = `p-${randomUUID()}`;
    const runs: Array<{ by: string; tenant: string; attempt: number }> = [];
    const woken: string[] = [];
    const check = impactCheck();
    const view = async (plane: QueuePlane, tenant: string) =>
      new BullmqImpactQueue({ client: await producerClient(), logger, plane: { plane, tenant } });
    const build = async (plane: QueuePlane, tenant: string, by: string) => {
      const v = await view(plane, tenant);
      v.start(async (_c, attempt) => {
        runs.push({ by, tenant, attempt });
        return attempt === 0 ? 200 : null;
      });
      return () => v.close();
    };
    const a = await replica('a', prefix, ['T1', 'T2'], build, woken);
    const b = await replica('b', prefix, ['T1', 'T2'], build, woken);
    // The same agent job id in two tenants: two checks, not one.
    for (const [plane, tenant] of [
      [a, 'T1'],
      [b, 'T1'],
    ] as const) {
      const scope = await view(plane, tenant);
      await scope.enqueue(check, Date.now() + 300);
      await scope.close();
    }
    // A use case still running in a scope already evicted (its view closed) does not lose its check.
    const evicted = await view(b, 'T2');
    await evicted.close();
    await evicted.enqueue(check, Date.now() + 300);
    await waitFor(() => runs.filter((r) => r.attempt === 1).length >= 2, {
      what: 'both retries',
      timeoutMs: 15_000,
    });
    await sleep(500);
    expect(woken.length).toBeGreaterThanOrEqual(2);
    expect(runs.map((r) => `${r.tenant}#${r.attempt}`).sort()).toEqual(['T1#0', 'T1#1', 'T2#0', 'T2#1']);
  }, 30_000);
});
