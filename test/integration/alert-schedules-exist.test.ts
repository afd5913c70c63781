import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { beforeAll, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { HealthAlerts } from '../../src/insights/alerts/health-alerts.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import { encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import type { AlertStore } from '../../src/insights/ports.js';
import { MemoryAlertStore } from '../../src/state/alert-stores.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { InProcessAlertScheduler } from '../../src/state/memory/alert-cron-scheduler.js';
import { bullConnectionOf, type RedisClient } from '../../src/state/redis/redis-client.js';
import { SINGLE_WORKSPACE_TENANT } from '../../src/state/redis/single-plane.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 34, "schedules only where they exist": an idle tenant schedules nothing. `alerts on` creates the
 * recurring check, the last `alerts off` (or a check finding no subscription) removes it; weekly posts have a
 * job scheduler only while a schedule exists.
 */

const logger = createLogger({ level: 'silent', secrets: [] });
const redis = redisForReplicas();
let client: RedisClient;
beforeAll(async () => {
  client = await redis.replica();
});

/** Single-workspace mode's plane queue of a kind under a namespace (one shard), as Redis holds it. */
const KINDS = { 'health-alerts': 'alerts', 'weekly-reports': 'weekly' } as const;
const planePrefix = (namespace: string, queue: keyof typeof KINDS) =>
  `${namespace}:{plane-${KINDS[queue]}-0}`;

/** The job scheduler ids of the workspace on one plane queue of a namespace, as Redis holds them. */
const schedulers = async (namespace: string, queue: keyof typeof KINDS) =>
  (await client.zRange(`${planePrefix(namespace, queue)}:${KINDS[queue]}:repeat`, 0, -1)).map((id) =>
    id.replace(`${KINDS[queue]}-${SINGLE_WORKSPACE_TENANT}-`, ''),
  );

async function app(
  namespace: string,
): Promise<TestApp & { answer(command: string, text: string, channel?: string): Promise<string> }> {
  const t = await startTestApp({
    env: { REDIS_URL: redis.url(), HEALTH_ALERT_INTERVAL_MS: '1000' },
    agentOptions: { namespace },
  });
  return {
    ...t,
    async answer(command, text, channel = 'C0ALERTS') {
      const before = t.slack.responses.length;
      const ack = await t.command({ command, text, channel_id: channel });
      expect(ack.status).toBe(200);
      const reply = await waitFor(() => t.slack.responses[before], { what: `the answer to ${text}` });
      return String(reply.body.text);
    },
  };
}

describe('schedules only where they exist (redis-server)', () => {
  it('alerts: none until the first `alerts on`, kept while one channel remains, gone after the last `alerts off`, and armed again at start only with a subscription', async () => {
    const ns = `ns-${randomUUID()}`;
    let t = await app(ns);
    try {
      expect(await schedulers(ns, 'health-alerts')).toEqual([]);
      expect(await schedulers(ns, 'weekly-reports')).toEqual([]);
      expect(await t.answer('/docs-health', 'alerts on')).toContain('Docs-health alerts are on');
      expect(await schedulers(ns, 'health-alerts')).toEqual(['health-alert-check']);
      await t.answer('/docs-health', 'alerts on', 'C0OTHER');
      await t.answer('/docs-health', 'alerts off');
      expect(await schedulers(ns, 'health-alerts')).toEqual(['health-alert-check']);
      await t.answer('/docs-health', 'alerts off', 'C0OTHER');
      expect(await schedulers(ns, 'health-alerts')).toEqual([]);
      // No delayed check left behind either.
      expect(await client.zCard(`${planePrefix(ns, 'health-alerts')}:alerts:delayed`)).toBe(0);

      // A restart with no subscription creates nothing; with one (its scheduler lost), start arms it.
      await t.stop();
      t = await app(ns);
      expect(await schedulers(ns, 'health-alerts')).toEqual([]);
      await t.answer('/docs-health', 'alerts on');
      await t.stop();
      const queue = new Queue('alerts', {
        connection: bullConnectionOf(client),
        prefix: planePrefix(ns, 'health-alerts'),
      });
      await queue.removeJobScheduler(`alerts-${SINGLE_WORKSPACE_TENANT}-health-alert-check`);
      await queue.close();
      expect(await schedulers(ns, 'health-alerts')).toEqual([]);
      t = await app(ns);
      expect(await schedulers(ns, 'health-alerts')).toEqual(['health-alert-check']);
    } finally {
      await t.stop();
    }
  }, 60_000);

  it('alerts: a check that finds no subscription removes the scheduler (one an older version left behind, moved by the migration at start)', async () => {
    const ns = `ns-${randomUUID()}`;
    // The previous version's own queue (moved onto the plane by the start's migration).
    const queue = new Queue('health-alerts', { connection: bullConnectionOf(client), prefix: `${ns}:bull` });
    await queue.upsertJobScheduler(
      'health-alert-check',
      { every: 1000 },
      { name: 'health-alert-check', data: {} },
    );
    await queue.close();
    const t = await app(ns);
    try {
      await waitFor(async () => (await schedulers(ns, 'health-alerts')).length === 0, {
        what: 'the idle check removing its scheduler',
        timeoutMs: 10_000,
      });
      expect(await schedulers(ns, 'health-alerts')).toEqual([]);
    } finally {
      await t.stop();
    }
  }, 30_000);

  it('weekly posts: a job scheduler only while the schedule exists', async () => {
    const ns = `ns-${randomUUID()}`;
    const t = await app(ns);
    try {
      expect(await schedulers(ns, 'weekly-reports')).toEqual([]);
      await t.answer('/docs-health', 'schedule monday 09:00 Europe/Berlin');
      expect(await schedulers(ns, 'weekly-reports')).toHaveLength(1);
      await t.answer('/docs-health', 'unschedule');
      expect(await schedulers(ns, 'weekly-reports')).toEqual([]);
      expect(await schedulers(ns, 'health-alerts')).toEqual([]);
    } finally {
      await t.stop();
    }
  }, 30_000);
});

describe('schedules only where they exist (memory)', () => {
  function alerts(store: AlertStore, scheduler: InProcessAlertScheduler): HealthAlerts {
    return new HealthAlerts({
      store,
      scheduler,
      publisher: {
        postAlert: async () => undefined,
        postedTs: async () => undefined,
        postFollowUp: async () => undefined,
      },
      source: new AnalyticsSource({
        cache: createMemoryAnalyticsCache(logger),
        budget: new InMemoryHourlyQuota(1),
        logger,
        cacheTtlMs: 0,
      }),
      healthApiFor: () => {
        throw new Error('not read');
      },
      viewsApiFor: () => {
        throw new Error('not read');
      },
      projects: { defaultProjectId: 'P', isMulti: false, projectFor: () => 'P' },
      encodeEvidence: encodeEvidenceRef,
      clock: { now: () => Date.now() },
      logger,
      intervalMs: 60_000,
      maxPages: 1,
    });
  }

  it('no timer until `alerts on`, none after the last `alerts off` or a check finding none, one at start with a subscription', async () => {
    const store = new MemoryAlertStore();
    const scheduler = new InProcessAlertScheduler(60_000, logger);
    const a = alerts(store, scheduler);
    await a.start();
    expect(scheduler.isArmed).toBe(false);
    await a.subscribe('C1', 'U1', 'normal');
    await a.subscribe('C2', 'U1', 'normal');
    expect(scheduler.isArmed).toBe(true);
    await a.unsubscribe('C1');
    expect(scheduler.isArmed).toBe(true);
    await a.unsubscribe('C2');
    expect(scheduler.isArmed).toBe(false);

    await scheduler.arm();
    await a.check(Date.now());
    expect(scheduler.isArmed).toBe(false);
    await a.stop();

    await store.subscribe({ channelId: 'C3', sensitivity: 'normal', createdBy: 'U1', createdAt: 0 });
    const restarted = new InProcessAlertScheduler(60_000, logger);
    await alerts(store, restarted).start();
    expect(restarted.isArmed).toBe(true);
    await restarted.stop();
  });

  it('an `alerts on` racing the last `alerts off` keeps the check armed', async () => {
    const store = new MemoryAlertStore();
    const scheduler = new InProcessAlertScheduler(60_000, logger);
    // The last `alerts off` reads "no subscription"; an `alerts on` then writes and arms (already armed: a
    // no-op); only then does the off disarm. Its second read must see the new channel and arm again.
    let gate: (() => void) | undefined;
    const raced: AlertStore = Object.assign(Object.create(store) as AlertStore, {
      subscriptions: async () => {
        const read = await store.subscriptions();
        if (!gate && read.length === 0) await new Promise<void>((resolve) => (gate = resolve));
        return read;
      },
    });
    await store.subscribe({ channelId: 'C1', sensitivity: 'normal', createdBy: 'U1', createdAt: 0 });
    const a = alerts(raced, scheduler);
    await a.start();
    expect(scheduler.isArmed).toBe(true);
    const off = a.unsubscribe('C1');
    await waitFor(() => gate, { what: 'the off reading no subscription' });
    await a.subscribe('C2', 'U1', 'normal');
    gate!();
    await off;
    expect(scheduler.isArmed).toBe(true);
    await a.stop();
  });
});
