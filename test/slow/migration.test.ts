import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { WeeklySchedule } from '../../src/insights/ports.js';
import { BullmqWeeklyScheduler } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { migrationKeys } from '../../src/state/redis/migrations/runner.js';
import { PLANE_KINDS } from '../../src/state/redis/plane-kinds.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { SINGLE_WORKSPACE_TENANT } from '../../src/state/redis/single-plane.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { oauthEnv, startOAuthApp } from '../support/oauth-app.js';
import { OldQueueLayout, oldQueueKeys } from '../support/old-queue-layout.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { ALPHA, BETA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';
import { startTestApp, testEnv } from '../support/test-app.js';

/*
 * Issue 43 §6, upgrading a deployment: Redis as the previous version left it (each key space's own queues,
 * written through the raw BullMQ calls that version made; test/support/old-queue-layout.ts), with a job in
 * flight (its poll queued, its PR link not yet posted) and a weekly schedule. `npm run migrate` moves it;
 * the new version then posts the PR link once in the job's thread, and the schedule keeps its next run.
 */

const logger = createLogger({ level: 'silent', secrets: [] });
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
const run = promisify(execFile);

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

async function fakes() {
  const redis: RedisServer = await startRedisServer();
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  cleanup.push(
    () => redis.stop(),
    () => slack.close(),
    () => docs.close(),
  );
  const client = await connectRedis(redis.url, logger, { failFast: false });
  cleanup.push(() => closeRedis(client));
  return { redis, slack, docs, client };
}

/** `npm run migrate` with the app's environment: its exit code and what it printed. */
async function migrate(env: Record<string, string>) {
  const { PATH, HOME } = process.env;
  const result = await run(process.execPath, ['--import', TSX, 'scripts/migrate.ts'], {
    cwd: ROOT,
    env: { ...(PATH ? { PATH } : {}), ...(HOME ? { HOME } : {}), ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: result.code, out: `${result.stdout}${result.stderr}` };
}

/**
 * Turns a tenant's work on the plane (as this version left it) back into the previous version's layout:
 * its polls and weekly schedules into its key space's own queues; the plane and the migration record go.
 */
async function asThePreviousVersionLeftIt(
  client: RedisClient,
  spaces: Array<{ tenant: string; namespace: string }>,
) {
  const plane = new QueuePlane({ client, logger, shards: 1, wake: async () => 'gone' });
  const polled = new Map<string, number>();
  for (const { tenant, namespace } of spaces) {
    const old = new OldQueueLayout(client, namespace);
    // A fair kind's ready job waits in BullMQ's prioritized set (swept there, not yet taken when the app stopped).
    for (const job of await plane
      .queue('polls', tenant)
      .getJobs(['delayed', 'waiting', 'prioritized', 'active'])) {
      const data = job.data as { tenant: string; jobId: string; dueAt: number };
      if (data.tenant !== tenant) continue;
      await old.poll(data.jobId, data.dueAt);
      polled.set(data.jobId, data.dueAt);
    }
    for (const scheduler of await plane.queue('weekly', tenant).getJobSchedulers(0, -1, true)) {
      const data = scheduler.template?.data as { tenant: string; schedule: WeeklySchedule };
      if (data.tenant === tenant) await old.weekly(data.schedule);
    }
    await old.close();
  }
  for (const kind of PLANE_KINDS) await plane.queue(kind, spaces[0]!.tenant).obliterate({ force: true });
  await plane.close();
  await client.del(migrationKeys().done);
  return polled;
}

/** A tenant's weekly schedules' next runs, as the new version reads them. */
async function nextRuns(client: RedisClient, tenant: string, namespace: string) {
  const plane = new QueuePlane({ client, logger, shards: 1, wake: async () => 'gone' });
  try {
    return await new BullmqWeeklyScheduler({
      client,
      logger,
      namespace,
      plane: { plane, tenant },
    }).nextRuns();
  } finally {
    await plane.close();
  }
}

/** Waits until the tenant has no poll pending or running, on the plane or in its old queue. */
async function noPollLeft(client: RedisClient, tenant: string, namespace: string) {
  const plane = new QueuePlane({ client, logger, shards: 1, wake: async () => 'gone' });
  try {
    await waitFor(
      async () => {
        const jobs = await plane
          .queue('polls', tenant)
          .getJobs(['delayed', 'waiting', 'active', 'prioritized']);
        const theirs = jobs.filter((job) => (job.data as { tenant?: string }).tenant === tenant);
        return theirs.length === 0 && (await oldQueueKeys(client, namespace)).length === 0;
      },
      { what: 'the watch over', timeoutMs: 15_000 },
    );
  } finally {
    await plane.close();
  }
}

/** The job's card (the message that opened its thread). */
const cardOf = (slack: FakeSlack, jobId: string) =>
  slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(jobId));

describe('upgrading a deployment with `npm run migrate`', () => {
  it('single-workspace mode: the job in flight posts its PR link once in its thread, the weekly post keeps its time', async () => {
    const { redis, slack, docs, client } = await fakes();
    const env = { REDIS_URL: redis.url, LOG_LEVEL: 'info' };
    const first = await startTestApp({ env, slack, docs });
    cleanup.push(() => first.stop());
    await first.command({ text: 'document the upgrade' });
    const jobId = await waitFor(() => [...docs.jobs.keys()][0], { what: 'the job' });
    await first.command({ command: '/docs-views', text: 'schedule monday 09:00 Europe/Berlin' });
    await waitFor(async () => (await nextRuns(client, SINGLE_WORKSPACE_TENANT, 'docs-agent')).size === 1, {
      what: 'the weekly schedule',
    });
    await first.stop();
    const polled = await asThePreviousVersionLeftIt(client, [
      { tenant: SINGLE_WORKSPACE_TENANT, namespace: 'docs-agent' },
    ]);
    expect([...polled.keys()]).toEqual([jobId]);
    const before = await new OldQueueLayout(client, 'docs-agent').weeklyNextRuns();
    expect(before.size).toBe(1);

    const migrated = await migrate(testEnv(slack, docs, env));
    expect(migrated).toMatchObject({ code: 0 });
    expect(migrated.out).toContain('2026-12-own-queues-onto-plane: keySpaces=1 jobs=1 schedulers=1');
    expect(await oldQueueKeys(client, 'docs-agent')).toEqual([]);
    const again = await migrate(testEnv(slack, docs, env));
    expect(again).toMatchObject({ code: 0 });
    expect(again.out).toContain('2026-12-own-queues-onto-plane: already done');

    const pr = 'https://github.com/acme/docs/pull/4343';
    docs.complete(jobId, pr);
    const second = await startTestApp({ env, slack, docs });
    cleanup.push(() => second.stop());
    await waitFor(() => prLinkReplies(slack, pr).length > 0, {
      what: 'the PR link reply',
      timeoutMs: 15_000,
    });
    expect(await nextRuns(client, SINGLE_WORKSPACE_TENANT, 'docs-agent')).toEqual(before);
    // The watch is over (no poll of the job left on the plane, none in an old queue): nothing can post again.
    await noPollLeft(client, SINGLE_WORKSPACE_TENANT, 'docs-agent');
    const replies = prLinkReplies(slack, pr);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.args.thread_ts).toBe(cardOf(slack, jobId)?.ts);
  }, 60_000);

  it('OAuth mode, two workspaces: each job in flight posts its PR link once in its thread, the schedules keep their times', async () => {
    const { redis, slack, docs, client } = await fakes();
    registerTenants(slack, docs);
    const env = { REDIS_URL: redis.url, LOG_LEVEL: 'info', POLL_INTERVAL_MS: '100' };
    const first = await startOAuthApp({ env, slack, docs });
    cleanup.push(() => first.stop());
    const jobs = new Map<string, string>();
    for (const t of [ALPHA, BETA]) {
      expect((await installAndConnect(first, slack, t)).status).toBe(200);
      jobs.set(t.teamId, await startJob(first, docs, t, `document ${t.marker}`));
      await first.command({
        command: '/docs-views',
        text: 'schedule monday 09:00 Europe/Berlin',
        user_id: t.user,
        team_id: t.teamId,
        channel_id: t.channel(1),
      });
    }
    const spaces = [ALPHA, BETA].map((t) => ({ tenant: t.teamId, namespace: `docs-agent:t:${t.teamId}` }));
    for (const s of spaces)
      await waitFor(async () => (await nextRuns(client, s.tenant, s.namespace)).size === 1, {
        what: 'the weekly schedules',
      });
    await first.stop();
    const polled = await asThePreviousVersionLeftIt(client, spaces);
    expect([...polled.keys()].sort()).toEqual([...jobs.values()].sort());
    const before = new Map<string, Map<string, number>>();
    for (const s of spaces)
      before.set(s.tenant, await new OldQueueLayout(client, s.namespace).weeklyNextRuns());

    const migrated = await migrate(oauthEnv(slack, docs, env));
    expect(migrated).toMatchObject({ code: 0 });
    expect(migrated.out).toContain('2026-12-old-queues-onto-plane: keySpaces=2 jobs=2 schedulers=2');
    const again = await migrate(oauthEnv(slack, docs, env));
    expect(again.out).toContain('2026-12-old-queues-onto-plane: already done');

    const prs = new Map(
      [...jobs.keys()].map((team, i) => [team, `https://github.com/acme/docs/pull/50${i}`]),
    );
    for (const [team, jobId] of jobs) docs.complete(jobId, prs.get(team)!);
    const second = await startOAuthApp({ env, slack, docs });
    cleanup.push(() => second.stop());
    for (const pr of prs.values())
      await waitFor(() => prLinkReplies(slack, pr).length > 0, {
        what: 'the PR link replies',
        timeoutMs: 20_000,
      });
    for (const s of spaces)
      expect(await nextRuns(client, s.tenant, s.namespace)).toEqual(before.get(s.tenant));
    for (const s of spaces) await noPollLeft(client, s.tenant, s.namespace);
    for (const [team, jobId] of jobs) {
      const replies = prLinkReplies(slack, prs.get(team)!);
      expect(replies).toHaveLength(1);
      expect(replies[0]?.args.thread_ts).toBe(cardOf(slack, jobId)?.ts);
    }
  }, 90_000);

  it('a Redis that does not answer: exit 1, what to do, never the password; invalid settings: exit 2', async () => {
    const { slack, docs } = await fakes();
    const password = 'n0t-f0r-pr1nting-9431';
    const down = await migrate(testEnv(slack, docs, { REDIS_URL: `redis://:${password}@127.0.0.1:1` }));
    expect(down.code).toBe(1);
    expect(down.out).toContain('Could not reach Redis at 127.0.0.1:1');
    expect(down.out).toContain('Nothing was migrated');
    expect(down.out).not.toContain(password);
    const invalid = await migrate(
      testEnv(slack, docs, { REDIS_URL: urlWithPassword(password), DOCS_API_URL: 'nope' }),
    );
    expect(invalid.code).toBe(2);
    expect(invalid.out).toContain('nothing was migrated');
    expect(invalid.out).not.toContain(password);
  }, 60_000);
});

const urlWithPassword = (password: string) => `redis://:${password}@127.0.0.1:1`;
