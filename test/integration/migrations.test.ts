import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { WeeklySchedule } from '../../src/insights/ports.js';
import { BullmqImpactQueue } from '../../src/state/redis/bullmq-impact-queue.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { BullmqWeeklyScheduler } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { migrateAtStart } from '../../src/state/redis/migrations/at-start.js';
import { migrationKeys, runMigrations } from '../../src/state/redis/migrations/runner.js';
import { oauthMigrations, singleWorkspaceMigrations } from '../../src/state/redis/migrations/steps.js';
import { planeJobId, QueuePlane } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { SINGLE_WORKSPACE_TENANT, singleWorkspacePlane } from '../../src/state/redis/single-plane.js';
import { impactCheck } from '../support/impact-check.js';
import { OldQueueLayout, oldQueueKeys } from '../support/old-queue-layout.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const redis = redisForReplicas();
const HOUR = 3_600_000;

const weekly = (channelId: string): WeeklySchedule => ({
  channelId,
  cron: '0 9 * * 1',
  timeZone: 'Europe/Berlin',
  createdBy: 'U1',
  createdAt: 0,
  source: 'command',
});

/** A key space as the previous version left it: polls, a PR follow, a check, a schedule, a retry, alerts. */
async function seed(client: RedisClient, namespace: string) {
  const old = new OldQueueLayout(client, namespace);
  await old.poll('job:in-flight', Date.now() + HOUR);
  await old.poll('job:pr', Date.now() + 2 * HOUR, 'pr-follow');
  await old.impact(impactCheck('job:merged'), Date.now() + 3 * HOUR, 2);
  await old.weekly(weekly('C1'));
  await old.weeklyRetry(weekly('C1'), 1_000, Date.now() + 4 * HOUR);
  await old.alerts(HOUR);
  const nextRuns = await old.weeklyNextRuns();
  await old.close();
  return { nextRuns };
}

/** What a tenant has on the plane now, kind by kind. */
async function onPlane(plane: QueuePlane, tenant: string) {
  const jobs = async (kind: 'polls' | 'pr-follow' | 'impact' | 'weekly') =>
    (await plane.queue(kind, tenant).getJobs(['delayed', 'waiting'])).filter(
      (job: Job) => (job.data as { tenant?: string }).tenant === tenant,
    );
  return {
    polls: await jobs('polls'),
    prFollows: await jobs('pr-follow'),
    impact: await jobs('impact'),
    weeklyRetries: (await jobs('weekly')).filter((job) => !job.repeatJobKey),
    alerts: await plane.queue('alerts', tenant).getJobSchedulers(0, -1, true),
  };
}

describe('the deployment migration', () => {
  it('single-workspace mode: its own queues move onto the plane (due times, attempts, cron and next run kept); a second run changes nothing', async () => {
    const client = await redis.replica({ failFast: false });
    const namespace = `m-${randomUUID().slice(0, 8)}`;
    const { nextRuns } = await seed(client, namespace);
    const before = nextRuns.get('C1');
    expect(before).toBeGreaterThan(Date.now());
    const polled = Date.now() + HOUR;

    const keys = migrationKeys(namespace);
    const steps = singleWorkspaceMigrations({ client, logger, namespace });
    const first = await runMigrations({ client, steps, keys });
    expect(first).toEqual([
      {
        name: '2026-12-own-queues-onto-plane',
        status: 'ran',
        counts: { keySpaces: 1, jobs: 4, schedulers: 2 },
      },
    ]);
    expect(await oldQueueKeys(client, namespace)).toEqual([]);

    const plane = singleWorkspacePlane({ client, logger, namespace, pollConcurrency: 1 });
    try {
      const tenant = SINGLE_WORKSPACE_TENANT;
      const found = await onPlane(plane, tenant);
      expect(found.polls.map((job) => job.id)).toEqual([planeJobId('poll', tenant, 'job:in-flight')]);
      const dueAt = found.polls.map((job) => (job.data as { dueAt: number }).dueAt)[0] ?? 0;
      expect(Math.abs(dueAt - polled)).toBeLessThan(1_000);
      expect(found.prFollows.map((job) => (job.data as { jobId: string }).jobId)).toEqual(['job:pr']);
      expect(found.impact.map((job) => job.data)).toEqual([
        { tenant, check: impactCheck('job:merged'), attempt: 2 },
      ]);
      expect(found.weeklyRetries.map((job) => (job.data as { occurrence: number }).occurrence)).toEqual([
        1_000,
      ]);
      expect(found.alerts.map((s) => Number(s.every))).toEqual([HOUR]);
      // The weekly post keeps its cron, zone and next instant.
      const view = new BullmqWeeklyScheduler({ client, logger, namespace, plane: { plane, tenant } });
      expect(await view.nextRuns()).toEqual(new Map([['C1', before]]));
      const [scheduler] = await plane.queue('weekly', tenant).getJobSchedulers(0, -1, true);
      expect({ pattern: scheduler?.pattern, tz: scheduler?.tz }).toEqual({
        pattern: '0 9 * * 1',
        tz: 'Europe/Berlin',
      });
    } finally {
      await plane.close();
    }

    // Recorded: a second run runs nothing and counts nothing.
    const second = await runMigrations({ client, steps, keys });
    expect(second).toEqual([{ name: '2026-12-own-queues-onto-plane', status: 'recorded', counts: {} }]);
    // Safe to run twice even without the record (a runner that died before recording): nothing left to move.
    expect(await steps[0]!.run(async () => undefined)).toEqual({ keySpaces: 0, jobs: 0, schedulers: 0 });
  });

  it('OAuth mode: every installed tenant’s old queues move onto its shard, the tenant is marked due, the per-start markers go', async () => {
    const client = await redis.replica({ failFast: false });
    const tenants = ['T1MIGRATE', 'T2MIGRATE'];
    await client.hSet('docs-agent:directory:tenants', Object.fromEntries(tenants.map((t) => [t, '1'])));
    await client.hSet('docs-agent:directory:tenant-generations', { T2MIGRATE: '2' });
    const namespaces = { T1MIGRATE: 'docs-agent:t:T1MIGRATE', T2MIGRATE: 'docs-agent:t:T2MIGRATE@2' };
    for (const ns of Object.values(namespaces)) await seed(client, ns);
    await client.set('docs-agent:{plane}:migrated', '1');

    const oauth = { upgradedTenant: undefined, queueShards: 4, cluster: false };
    const steps = oauthMigrations({ client, logger, oauth });
    const outcomes = await runMigrations({ client, steps });
    expect(outcomes.map((o) => [o.name, o.counts])).toEqual([
      // Installs seeded through this version's directory: nothing of the old directory layout to move.
      ['2026-12-directory-by-tenant-slot', { tenants: 0 }],
      ['2026-12-old-queues-onto-plane', { keySpaces: 2, jobs: 8, schedulers: 4 }],
      ['2026-12-workspace-jobs-to-upgraded-workspace', { jobs: 0, schedulers: 0 }],
      ['2026-12-legacy-markers', { keys: 1 }],
    ]);
    for (const ns of Object.values(namespaces)) expect(await oldQueueKeys(client, ns)).toEqual([]);
    expect(await client.zRange('docs-agent:{due}:tenants', 0, -1)).toEqual(expect.arrayContaining(tenants));
    const plane = new QueuePlane({ client, logger, shards: 4, wake: async () => 'gone' });
    try {
      for (const tenant of tenants) {
        const found = await onPlane(plane, tenant);
        expect([
          found.polls.length,
          found.prFollows.length,
          found.impact.length,
          found.alerts.length,
        ]).toEqual([1, 1, 1, 1]);
      }
    } finally {
      await plane.close();
    }
    const again = await runMigrations({ client, steps });
    expect(again.every((o) => o.status === 'recorded' && Object.keys(o.counts).length === 0)).toBe(true);
  });

  it('OAuth mode upgraded from a single-workspace deployment of this version: its queued work is handed to the upgraded workspace', async () => {
    const client = await redis.replica({ failFast: false });
    // Single-workspace mode's plane (key space `docs-agent`, one shard): a poll, a check, a schedule.
    const single = singleWorkspacePlane({ client, logger, namespace: 'docs-agent', pollConcurrency: 1 });
    const on = {
      client,
      logger,
      namespace: 'docs-agent',
      plane: { plane: single, tenant: SINGLE_WORKSPACE_TENANT },
    };
    await new BullmqPollQueue(on).schedule('job:upgraded', HOUR);
    await new BullmqImpactQueue(on).add(impactCheck('job:checked'), Date.now() + HOUR, 1);
    const weeklyView = new BullmqWeeklyScheduler(on);
    await weeklyView.upsert(weekly('C7'));
    const before = await weeklyView.nextRuns();
    await single.close();

    const upgraded = 'T0UPGRADED';
    const oauth = { upgradedTenant: upgraded, queueShards: 1, cluster: false };
    const outcomes = await runMigrations({
      client,
      steps: oauthMigrations({ client, logger, oauth }),
      keys: migrationKeys(`u-${randomUUID().slice(0, 8)}`),
    });
    expect(outcomes.find((o) => o.name === '2026-12-workspace-jobs-to-upgraded-workspace')?.counts).toEqual({
      jobs: 2,
      schedulers: 1,
    });
    const plane = new QueuePlane({ client, logger, shards: 1, wake: async () => 'gone' });
    try {
      const theirs = await onPlane(plane, upgraded);
      expect(theirs.polls.map((job) => (job.data as { jobId: string }).jobId)).toEqual(['job:upgraded']);
      expect(theirs.impact.map((job) => job.data)).toEqual([
        { tenant: upgraded, check: impactCheck('job:checked'), attempt: 1 },
      ]);
      const view = new BullmqWeeklyScheduler({ ...on, plane: { plane, tenant: upgraded } });
      expect(await view.nextRuns()).toEqual(before);
      const left = await onPlane(plane, SINGLE_WORKSPACE_TENANT);
      expect([left.polls.length, left.impact.length]).toEqual([0, 0]);
      const schedulers = await plane.queue('weekly', SINGLE_WORKSPACE_TENANT).getJobSchedulers(0, -1, true);
      expect(
        schedulers.filter(
          (x) => (x.template?.data as { tenant?: string })?.tenant === SINGLE_WORKSPACE_TENANT,
        ),
      ).toEqual([]);
    } finally {
      await plane.close();
    }
  });

  it('one run at a time: a second runner is told the migration is busy; a replica at start waits for it to finish', async () => {
    const client = await redis.replica({ failFast: false });
    const namespace = `w-${randomUUID().slice(0, 8)}`;
    const keys = migrationKeys(namespace);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ran: string[] = [];
    const slow = {
      name: 'slow',
      describe: 'waits for the test',
      run: async () => {
        ran.push('slow');
        await gate;
        return { things: 1 };
      },
    };
    const first = runMigrations({ client, steps: [slow], keys });
    while (ran.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await expect(runMigrations({ client, steps: [slow], keys })).rejects.toMatchObject({
      code: 'migration-busy',
    });
    let waits = 0;
    const waiting = migrateAtStart({
      client,
      steps: [slow],
      keys,
      logger,
      waitStepMs: 20,
      onWaiting: () => {
        waits++;
        release();
      },
    });
    expect(await first).toEqual([{ name: 'slow', status: 'ran', counts: { things: 1 } }]);
    expect(await waiting).toBe('waited');
    expect(waits).toBe(1);
    expect(ran).toEqual(['slow']);
  });

  it('fencing: a runner whose lease was taken over records nothing and stops', async () => {
    const client = await redis.replica({ failFast: false });
    const namespace = `f-${randomUUID().slice(0, 8)}`;
    const keys = migrationKeys(namespace);
    const steps = [
      {
        name: 'stalls',
        describe: 'loses its lease half-way',
        run: async () => {
          // Its lease expired meanwhile (a long pause) and another run took it: a new fencing token. The
          // step does not notice; the record of its completion is refused.
          await client.del(keys.lease);
          await client.set(keys.lease, '999');
          return { things: 1 };
        },
      },
    ];
    await expect(runMigrations({ client, steps, keys })).rejects.toMatchObject({
      code: 'migration-lease-lost',
    });
    expect(await client.hGetAll(keys.done)).toEqual({});
    // The other run's lease is left alone.
    expect(await client.get(keys.lease)).toBe('999');
  });
});
