import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { ImpactCheck } from '../../src/insights/health/ports.js';
import type { WeeklySchedule } from '../../src/insights/ports.js';
import { BullmqAlertScheduler } from '../../src/state/redis/bullmq-alert-scheduler.js';
import {
  BullmqImpactQueue,
  IMPACT_QUEUE_NAME,
  impactJobId,
} from '../../src/state/redis/bullmq-impact-queue.js';
import { BullmqWeeklyScheduler } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { createQueuePlane, type QueuePlane } from '../../src/state/redis/queue-plane.js';
import { bullConnectionOf, type RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { impactCheck } from '../support/impact-check.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/*
 * Issue 34, moving existing deployments: a Redis populated in the old layout (each tenant's own BullMQ
 * queues under its namespace, written by the per-tenant classes as they ran before the plane) is moved onto
 * the shared queues once, and the moved work runs for its tenant.
 */

const logger = createLogger({ level: 'silent', secrets: [] });
const prefix = `p-${randomUUID()}`;
const redis = redisForReplicas();
let client: RedisClient;
beforeAll(async () => {
  client = await redis.replica({ failFast: false });
});

const check = impactCheck;
const schedule = (channelId: string, cron: string): WeeklySchedule => ({
  channelId,
  cron,
  timeZone: 'Europe/Berlin',
  createdBy: 'U1',
  createdAt: 0,
  source: 'command',
});

/** A tenant's queues as an old replica left them: two checks, two schedules, a pending retry, the alert check. */
async function oldLayout(ns: string): Promise<void> {
  const impact = new BullmqImpactQueue({ client, logger, namespace: ns });
  await impact.enqueue(check('job:2'), Date.now() + 14 * 86_400_000);
  await impact.close();
  // A check with two tries behind it, as the old queue held it (the move keeps its count and due time).
  const old = new Queue(IMPACT_QUEUE_NAME, { connection: bullConnectionOf(client), prefix: `${ns}:bull` });
  await old.add('impact', { check: check('job:1'), attempt: 2 }, { jobId: impactJobId('job:1'), delay: 600 });
  await old.close();
  const weekly = new BullmqWeeklyScheduler({ client, logger, namespace: ns });
  await weekly.upsert(schedule('C1', '0 9 * * 1'));
  await weekly.upsert({ ...schedule('C2', '30 7 * * 5'), kind: 'health' });
  await weekly.retry(schedule('C1', '0 9 * * 1'), 1_000, Date.now() + 600);
  await weekly.stop();
  const alerts = new BullmqAlertScheduler({ client, logger, namespace: ns, intervalMs: 3_600_000 });
  await alerts.arm();
  await alerts.stop();
}

describe('moving the old per-tenant layout onto the shared queues', () => {
  it('views retire their old queues at start: checks and retries move once (due times and attempts kept) and run for their tenant; schedulers and the alert check are left to the use cases', async () => {
    const namespaces = {
      T1: `docs-agent:t:T1@${randomUUID().slice(0, 8)}`,
      T2: `docs-agent:t:T2@${randomUUID().slice(0, 8)}`,
    };
    for (const ns of Object.values(namespaces)) await oldLayout(ns);
    expect(await client.keys(`${namespaces.T1}:bull:*`)).not.toEqual([]);

    const ran: string[] = [];
    const views = (plane: QueuePlane, tenant: 'T1' | 'T2') => {
      const on = { client, logger, namespace: namespaces[tenant], plane: { plane, tenant } };
      return {
        impact: new BullmqImpactQueue(on),
        weekly: new BullmqWeeklyScheduler(on),
        alerts: new BullmqAlertScheduler({ ...on, intervalMs: 3_600_000 }),
      };
    };
    const start = async (v: ReturnType<typeof views>, tenant: string) => {
      v.impact.start(async (c, attempt) => {
        ran.push(`${tenant}:impact:${c.jobId}:${attempt}`);
        return null;
      });
      await v.weekly.start(async (s, occurrence) => {
        ran.push(`${tenant}:weekly:${s.channelId}:${occurrence}`);
      });
      await v.alerts.start(async () => {
        ran.push(`${tenant}:alert`);
      });
    };
    // A replica that takes a job of a tenant it does not hold builds that tenant's views (its scope).
    const planes: QueuePlane[] = [];
    for (let i = 0; i < 2; i++) {
      const plane: QueuePlane = createQueuePlane({
        client,
        logger,
        prefix,
        wake: async (tenant) => {
          await start(views(plane, tenant as 'T1' | 'T2'), tenant);
          return 'served';
        },
      });
      planes.push(plane);
    }
    const [a, b] = planes as [QueuePlane, QueuePlane];
    try {
      // Two replicas start T1's scope at once; T2's starts on one.
      await Promise.all([
        start(views(a, 'T1'), 'T1'),
        start(views(b, 'T1'), 'T1'),
        start(views(a, 'T2'), 'T2'),
      ]);
      for (const ns of Object.values(namespaces))
        await waitFor(async () => (await client.keys(`${ns}:bull:*`)).length === 0, {
          what: 'the old queues retired',
        });

      await waitFor(() => ran.length >= 4, { what: 'the moved checks and retries', timeoutMs: 15_000 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(ran.sort()).toEqual([
        'T1:impact:job:1:2',
        'T1:weekly:C1:1000',
        'T2:impact:job:1:2',
        'T2:weekly:C1:1000',
      ]);
      // The 14-day checks wait on the plane, one per tenant; no old scheduler came across.
      const shards = Array.from({ length: a.queues.shards }, (_, shard) => shard);
      const delayed = (
        await Promise.all(
          shards.map((shard) =>
            a.queues.at<{ tenant: string; check: ImpactCheck }>('impact', shard).getDelayed(),
          ),
        )
      ).flat();
      expect(delayed.map((j) => `${j.data.tenant}:${j.data.check.jobId}`).sort()).toEqual([
        'T1:job:2',
        'T2:job:2',
      ]);
      for (const shard of shards) {
        expect(await a.queues.at('weekly', shard).getJobSchedulersCount()).toBe(0);
        expect(await a.queues.at('alerts', shard).getJobSchedulersCount()).toBe(0);
      }
    } finally {
      for (const plane of planes) await plane.close();
    }
  }, 30_000);
});
