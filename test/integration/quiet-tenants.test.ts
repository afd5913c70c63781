import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import { RedisDueIndex } from '../../src/state/redis/redis-due-index.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { DELTA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, startJob } from '../support/tenant-connect.js';

/**
 * Issue 43, "no work per resident tenant": a tenant whose scope is resident but who has nothing in flight
 * (no watched job, no followed PR, nothing owed) registers no periodic run on the replica's one timer, GitHub
 * token or not. What it still owes is found through the deployment's due index.
 */
describe('OAuth mode on Redis: a quiet resident tenant costs no periodic work', () => {
  const TENANTS = Array.from({ length: 40 }, (_, i) => `T0QUIET${String(i).padStart(2, '0')}`);
  const WARM = 5;
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let github: FakeGitHub;
  let app: OAuthTestApp | undefined;
  let client: ReturnType<typeof createClient>;

  /** A tenant installs (its scope starts: welcome DM) and runs `/docs-agent help`. */
  const activate = async (teamId: string) => {
    const dms = slack.callsOf('chat.postMessage').length;
    await app!.install({ teamId, teamName: `Team ${teamId}` });
    await waitFor(() => slack.callsOf('chat.postMessage').length > dms, { what: `${teamId}'s welcome` });
    expect((await app!.command({ text: 'help', team_id: teamId })).body).toContain('/docs-agent');
  };
  /** A tenant's job store as a replica writes it, marking the deployment's due index. */
  const tenantJobStore = (tenant: string) => {
    const index = new RedisDueIndex(client as never);
    return createRedisJobStore(redis.url, createLogger({ level: 'silent', secrets: [] }), {
      namespace: `docs-agent:t:${tenant}`,
      dueIndex: { mark: (at) => index.mark(tenant, at) },
    });
  };
  const tokenChecks = () => github.requestsTo(/^\/rate_limit$/).length;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = createClient({ url: redis.url });
    await client.connect();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    github = await FakeGitHub.start();
    app = await startOAuthApp({
      env: {
        REDIS_URL: redis.url,
        INSTALLS_PER_MINUTE: '1000',
        LOG_LEVEL: 'debug',
        // Every tenant follows PRs and runs the doorbell with the operator's token.
        GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
        GITHUB_TOKEN_OWNERS: 'acme',
        GITHUB_API_URL: github.url,
        PR_DOORBELL_INTERVAL_MS: '500',
      },
      slack,
      docs,
      scopeIdleMs: 600_000,
    });
  });

  afterAll(async () => {
    await app?.stop();
    await client?.close();
    await slack?.close();
    await docs?.close();
    await github?.close();
    await redis?.stop();
  });

  it("the replica ticker's runs do not grow with the number of resident quiet tenants", async () => {
    for (const teamId of TENANTS.slice(0, WARM)) await activate(teamId);
    const few = app!.agent.periodicRuns!();
    for (const teamId of TENANTS.slice(WARM)) await activate(teamId);
    // Positive sign: every scope started (its welcome DM) and its PR following (one token check each).
    expect(tokenChecks()).toBeGreaterThanOrEqual(TENANTS.length);
    // The due index's read and the queue plane's re-home pass (both the replica's own), nothing per tenant:
    // forty resident tenants, as many runs as five.
    expect(app!.agent.periodicRuns!()).toBe(few);
    expect(few).toBeLessThanOrEqual(2);
  });

  it('a watched job without a pending poll of a resident tenant is found through the due index', async () => {
    const tenant = TENANTS[3]!;
    const jobId = 'job-stranded-quiet';
    // What a replica killed between saving a watched job and scheduling its poll leaves behind.
    const state = await tenantJobStore(tenant);
    const now = Date.now();
    const record: JobRecord = {
      ...{ jobId, teamId: tenant, channelId: 'C0QUIET', threadTs: '1.000001', cardTs: '1.000001' },
      ...{ requesterId: 'U0QUIET', prompt: 'Fix the typo', origin: 'command', status: 'running' },
      ...{ repository: null, ref: null, model: null, prLink: null, createdAt: now, activeSince: now },
      ...{ generation: 1, repliedGeneration: 0, watching: true, watchEnded: null },
      ...{ consecutiveFailures: 0, updatedAt: now },
    };
    await state.store.saveJob(record);
    await state.close();
    const polled = await waitFor(
      () => app!.logs.find((l) => l.includes('polling job') && l.includes(jobId)),
      { what: 'a poll of the stranded job', timeoutMs: 15_000 },
    );
    expect(JSON.parse(polled)).toMatchObject({ tenant, jobId });
  });

  it('a tenant that only follows a PR is looked at again in 15 minutes, not every 5 s', async () => {
    const tenant = TENANTS[4]!;
    const jobId = 'job-followed-quiet';
    const state = await tenantJobStore(tenant);
    const now = Date.now();
    const record: JobRecord = {
      ...{ jobId, teamId: tenant, channelId: 'C0QUIET', threadTs: '2.000001', cardTs: '2.000001' },
      ...{ requesterId: 'U0QUIET', prompt: 'Fix the typo', origin: 'command', status: 'succeeded' },
      ...{ repository: 'acme/docs', ref: null, model: null, prLink: 'https://github.com/acme/docs/pull/9' },
      ...{ createdAt: now, activeSince: now, generation: 1, repliedGeneration: 1, watching: false },
      ...{ watchEnded: 'stopped', consecutiveFailures: 0, updatedAt: now },
      pullRequest: {
        ...{ url: 'https://github.com/acme/docs/pull/9', startedAt: now, last: null, reads: 0 },
        ...{ failures: 0, ended: null, noticed: false },
      },
    };
    await state.store.saveJob(record);
    await state.store.setFollowing(jobId, true); // marks the tenant due in 5 s: one look soon after
    await state.close();
    // The look runs (the followed-PR pass finds its read) and settles the tenant's next look: the 15-minute
    // net (FOLLOW_RECHECK_MS), not the watched jobs' 5 s, which kept it resident and cost ~23 commands a look.
    const next = await waitFor(
      async () => {
        const score = await client.zScore('docs-agent:{due}:tenants', tenant);
        return score !== null && score > now + 60_000 ? score : undefined;
      },
      { what: "the followed-only tenant's next look settled", timeoutMs: 20_000 },
    );
    expect(next).toBeGreaterThan(Date.now() + 10 * 60_000);
    expect(next).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 1_000);
  });

  it('the doorbell ticks only while its tenant has a watched job on GitHub', async () => {
    registerTenants(slack, docs);
    github.addRepo('acme', 'docs');
    const quiet = app!.agent.periodicRuns!();
    expect((await installAndConnect(app!, slack, DELTA)).status).toBe(200);
    const jobId = await startJob(app!, docs, DELTA, 'Fix the typo on the auth page');
    // Its first poll asks the doorbell, which registers its tick and reads the repository.
    await waitFor(() => app!.agent.periodicRuns!() === quiet + 1, { what: 'the doorbell armed' });
    await waitFor(() => github.requestsTo(/^\/repos\/acme\/docs\/pulls$/).length > 0, {
      what: 'a read of the repository',
    });
    docs.fail(jobId);
    // The job ends (its reply), the doorbell's next look finds no watched job and unregisters its tick.
    await waitFor(() => app!.agent.periodicRuns!() === quiet, {
      what: 'the doorbell unarmed',
      timeoutMs: 15_000,
    });
  });
});
