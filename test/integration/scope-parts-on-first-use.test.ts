import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';

/**
 * Issue 43 §2: a resident tenant's scope builds the parts most tenants never use when they are first used.
 * A tenant that only sends `/docs-agent help` builds no Home publisher, no GitHub reader (it has no token)
 * and no Keyv for its analytics cache, assistant threads or evidence, nor the service groups it does not
 * use (reports, "did it work?", previews, job notices, conversations, settings managers, the PR-follow
 * queue); opening Home builds its publisher, its reports and its managers, once however often it is opened.
 * Constructions are counted by wrapping the classes.
 */
const built = vi.hoisted(() => ({ home: 0, github: 0, keyv: [] as string[], groups: [] as string[] }));

/** Counts the constructions of a group's first part (by its name in `built.groups`). */
const counted = vi.hoisted(
  () =>
    <A extends unknown[], T extends object>(
      name: string,
      Original: new (...args: A) => T,
      when?: (...args: A) => boolean,
    ) =>
      class extends (Original as unknown as new (...args: unknown[]) => object) {
        constructor(...args: unknown[]) {
          super(...args);
          if (!when || when(...(args as A))) built.groups.push(name);
        }
      } as unknown as new (
        ...args: A
      ) => T,
);

vi.mock('../../src/insights/analytics-source.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/insights/analytics-source.js')>();
  return { ...original, AnalyticsSource: counted('reports', original.AnalyticsSource) };
});
vi.mock('../../src/insights/health/health-impact.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/insights/health/health-impact.js')>();
  return { ...original, HealthImpact: counted('impact', original.HealthImpact) };
});
vi.mock('../../src/jobs/pull-requests/pull-request-index.js', async (importOriginal) => {
  const original =
    await importOriginal<typeof import('../../src/jobs/pull-requests/pull-request-index.js')>();
  return { ...original, PullRequestIndex: counted('unfurls', original.PullRequestIndex) };
});
vi.mock('../../src/slack/job-notifier.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/slack/job-notifier.js')>();
  return { ...original, SlackJobNotifier: counted('job notices', original.SlackJobNotifier) };
});
vi.mock('../../src/jobs/conversation-service.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/jobs/conversation-service.js')>();
  return { ...original, ConversationService: counted('conversations', original.ConversationService) };
});
vi.mock('../../src/tenants/settings-managers.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/tenants/settings-managers.js')>();
  return { ...original, SettingsManagers: counted('settings managers', original.SettingsManagers) };
});
vi.mock('../../src/state/redis/bullmq-poll-queue.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/state/redis/bullmq-poll-queue.js')>();
  const prFollow = (options: { queueName?: string }) => options.queueName === 'pr-follow';
  return {
    ...original,
    BullmqPollQueue: counted('pr-follow queue', original.BullmqPollQueue, prFollow),
  };
});

vi.mock('../../src/slack/app-home-publisher.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/slack/app-home-publisher.js')>();
  class CountedHome extends original.AppHomePublisher {
    constructor(...args: ConstructorParameters<typeof original.AppHomePublisher>) {
      super(...args);
      built.home += 1;
    }
  }
  return { ...original, AppHomePublisher: CountedHome };
});

vi.mock('../../src/github/github-pull-requests.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/github/github-pull-requests.js')>();
  class CountedGitHub extends original.GitHubPullRequests {
    constructor(...args: ConstructorParameters<typeof original.GitHubPullRequests>) {
      super(...args);
      built.github += 1;
    }
  }
  return { ...original, GitHubPullRequests: CountedGitHub };
});

vi.mock('../../src/state/redis/redis-keyv.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/state/redis/redis-keyv.js')>();
  return {
    ...original,
    redisKeyv: (...args: Parameters<typeof original.redisKeyv>) => {
      built.keyv.push(args[3]);
      return original.redisKeyv(...args);
    },
  };
});

describe('OAuth mode on Redis: a scope builds Home, GitHub and its idle stores on first use', () => {
  const TENANTS = ['T0LAZY01', 'T0LAZY02', 'T0LAZY03'];
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let app: OAuthTestApp | undefined;

  const start = () => startOAuthApp({ env: { REDIS_URL: redis.url }, slack, docs, scopeIdleMs: 60_000 });

  beforeAll(async () => {
    redis = await startRedisServer();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    app = await start();
    for (const teamId of TENANTS) await app.install({ teamId, teamName: `Team ${teamId}` });
    await app.stop();
    app = await start(); // a new replica: no scope built yet
    built.home = 0;
    built.github = 0;
    built.keyv = [];
    built.groups = [];
  });

  afterAll(async () => {
    await app?.stop();
    await slack?.close();
    await docs?.close();
    await redis?.stop();
  });

  it('builds none of them for tenants that only ask for help', async () => {
    for (const team_id of TENANTS)
      expect((await app!.command({ text: 'help', team_id })).body).toContain('/docs-agent');
    expect(built.home).toBe(0);
    expect(built.github).toBe(0);
    // Of the Keyv stores a scope may use, at most the weekly schedules' (read at start) is built, beside
    // the job store's ('state store', every scope's, made through the same view of the shared Keyv).
    expect(built.keyv.filter((what) => what !== 'schedule store' && what !== 'state store')).toEqual([]);
    // Three scopes built and started (weekly posts and alerts read and registered), no group among them.
    expect(built.groups).toEqual([]);
  });

  it("builds a tenant's Home publisher when someone opens its Home", async () => {
    const tenant = TENANTS[0]!;
    slack.userTeams.set('U0ALICE', tenant); // one of its own people
    await app!.event(
      eventEnvelope(
        { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' },
        undefined,
        tenant,
      ),
    );
    await expect.poll(() => built.home).toBe(1);
    await expect
      .poll(() => slack.calls.filter((c) => c.method === 'views.publish').length)
      .toBeGreaterThan(0);
  });

  it("builds what Home uses of the tenant's groups once, and no other tenant's", async () => {
    const tenant = TENANTS[0]!;
    const publishes = () => slack.calls.filter((c) => c.method === 'views.publish').length;
    const before = publishes();
    await app!.event(
      eventEnvelope(
        { type: 'app_home_opened', user: 'U0ALICE', channel: 'D0ALICE', tab: 'home' },
        undefined,
        tenant,
      ),
    );
    await expect.poll(publishes).toBeGreaterThan(before);
    // Its reports (Home's weekly summary) and its settings managers (who may manage), once for both opens.
    expect([...built.groups].sort()).toEqual(['reports', 'settings managers']);
  });
});
