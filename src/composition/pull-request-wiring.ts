import { randomUUID } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import type { PeriodicRuns } from '../delivery/reconciler.js';
import type { GitHubClients } from '../github/github-client.js';
import { GitHubNewestPullRequests } from '../github/github-newest-pulls.js';
import { GitHubPullRequests } from '../github/github-pull-requests.js';
import type { JobRecord } from '../jobs/domain/job.js';
import { PullRequestDoorbell } from '../jobs/doorbell/pull-request-doorbell.js';
import type { JobNotifier, JobStore } from '../jobs/ports.js';
import type { PullRequestOutcomes } from '../jobs/pull-requests/ports.js';
import { PullRequestFollower } from '../jobs/pull-requests/pull-request-follower.js';
import { SlackPullRequestNotices } from '../slack/pull-request-notices.js';
import type { AdapterSet } from '../state/adapters.js';
import type { TenantSettings } from '../tenants/tenant.js';
import type { TenantScope } from './docs-agent.js';

/** How often the doorbell lists the repositories with watched jobs (a ring lists them fresh). */
const DOORBELL_REFRESH_MS = 5_000;

export interface PullRequestWiring {
  /** After a job's terminal reply with a PR: resolves true when the PR is followed on GitHub. */
  onPullRequest(record: JobRecord, prLink: string): Promise<boolean>;
  /** Checks the token (one free `GET /rate_limit`), then starts reading followed PRs. */
  start(): Promise<void>;
  /** Whether the doorbell will poll this job at a new PR in its repository (false when off). */
  watches(record: JobRecord): Promise<boolean>;
  /** The reconciler's pass: every followed PR without a pending read gets one (nothing when off). */
  reconcile(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Following PRs on GitHub (issue 23), only with GITHUB_TOKEN: without it, or when GitHub refuses the token
 * at start, nothing is followed and everything else works as before ("did it work?" from the PR's day).
 */
export function wirePullRequests(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'pullRequestQueue' | 'pollQueue' | 'doorbellLeases'>;
  store: JobStore;
  notifier: Pick<JobNotifier, 'updateCard'>;
  outbox: Outbox;
  outcomes: PullRequestOutcomes;
  clock: Clock;
  logger: Logger;
  /**
   * OAuth mode: the tenant whose jobs these are. Its GitHub token connected in Slack is looked up on every
   * read (a change or a disconnect applies at the next one); without one, the runtime config's token.
   */
  tenant?: Pick<TenantScope, 'settings' | 'caches'>;
  /** Counts GitHub answers (benchmarks). */
  onGitHubResponse?: (kind: 'ok' | 'not_modified' | 'error') => void;
  /** OAuth mode: the replica's one timer (the doorbell ticks on it). */
  periodic?: PeriodicRuns | undefined;
  /** OAuth mode: the process's GitHub clients (one Octokit for every tenant); absent: its own. */
  github: GitHubClients;
}): PullRequestWiring {
  const { config, adapters } = input;
  const { token, apiUrl, webUrl, owners } = config.github;
  const queue = adapters.pullRequestQueue;
  const tenant = input.tenant;
  const credentials = tenant ? () => tenantGithubCredentials(tenant.settings, token, owners) : undefined;
  if (!token && !tenant)
    return {
      onPullRequest: async () => false,
      watches: async () => false,
      start: async () => undefined,
      reconcile: async () => 0,
      stop: () => queue.close(),
    };
  // Its GitHub reader, follower and doorbell are built when it starts following: a tenant with no GitHub token
  // (none connected, no operator's) pays for none of them while it waits for one (issue 43 §2).
  let parts: ReturnType<typeof build> | undefined;
  const build = () => {
    const logger = input.logger.child({ component: 'pull-requests' });
    const github = new GitHubPullRequests(
      {
        ...{ token: token ?? '', apiUrl, logger, ...(owners ? { owners } : {}) },
        ...(credentials ? { credentials } : {}),
        ...(input.onGitHubResponse ? { onResponse: input.onGitHubResponse } : {}),
        etags: tenant?.caches?.view('etags'),
      },
      () => input.clock.now(),
      input.github,
    );
    const follower = new PullRequestFollower({
      reader: github,
      store: input.store,
      queue,
      notices: new SlackPullRequestNotices(input.outbox),
      notifier: input.notifier,
      outcomes: input.outcomes,
      clock: input.clock,
      logger,
      timing: {
        minMs: config.github.followIntervalMs,
        maxMs: config.github.followMaxIntervalMs,
        maxAgeMs: config.github.followDays * 24 * 60 * 60 * 1000,
      },
      webUrl,
    });
    // The doorbell (issue 28): a new PR in a watched job's repository polls its active jobs at once.
    const doorbell =
      config.github.doorbellIntervalMs > 0
        ? new PullRequestDoorbell({
            feed: new GitHubNewestPullRequests(github.access, () => input.clock.now()),
            leases: adapters.doorbellLeases,
            store: input.store,
            queue: adapters.pollQueue,
            clock: input.clock,
            logger: logger.child({ part: 'doorbell' }),
            timing: {
              intervalMs: config.github.doorbellIntervalMs,
              maxReadsPerSecond: config.github.doorbellReadsPerSecond,
              refreshMs: DOORBELL_REFRESH_MS,
            },
            webUrl,
            holder: randomUUID(),
            periodic: input.periodic,
          })
        : undefined;
    return { logger, github, follower, doorbell };
  };
  const following = () => {
    parts ??= build();
    return parts;
  };
  let enabled = false;
  let waitingForToken = false;
  const begin = () => {
    const { logger, follower, doorbell } = following();
    enabled = true;
    waitingForToken = false;
    follower.start();
    doorbell?.start();
    logger.info(
      { apiUrl, webUrl, doorbellIntervalMs: config.github.doorbellIntervalMs },
      'following pull requests on GitHub',
    );
  };
  // A tenant with no GitHub token starts no queue worker (no Redis connection) until a manager connects one:
  // the next reconciler pass, PR or doorbell question after that starts it.
  const ready = () => {
    if (waitingForToken && credentials?.()) begin();
    return enabled;
  };
  return {
    onPullRequest: (record, prLink) =>
      ready() && parts ? parts.follower.onPullRequest(record, prLink) : Promise.resolve(false),
    reconcile: () => (ready() && parts ? parts.follower.reconcile() : Promise.resolve(0)),
    watches: (record) =>
      ready() && parts?.doorbell ? parts.doorbell.watches(record) : Promise.resolve(false),
    async start() {
      if (credentials && !credentials()) {
        waitingForToken = true;
        return;
      }
      const { logger, github } = following();
      const check = await github.validate();
      if (check === 'unauthorized') {
        logger.error(
          `GitHub refused GITHUB_TOKEN (401: wrong, expired or revoked). Pull requests are not followed and "did it work?" counts from the PR's day until a valid token is set and the bot restarted.`,
        );
        return;
      }
      if (check === 'unreachable')
        logger.warn({ apiUrl }, 'GitHub did not answer the token check; following PRs anyway (reads retry)');
      begin();
    },
    async stop() {
      // Never built: its queue still closes, as the follower's stop closes it.
      if (!parts) return queue.close();
      await Promise.all([parts.doorbell?.stop(), parts.follower.stop()]);
    },
  };
}

/**
 * The GitHub token a tenant's reads use now: the one its managers connected in Slack (only for the owners it
 * was connected for), else the runtime config's (the operator's, limited to GITHUB_TOKEN_OWNERS), else none.
 */
export function tenantGithubCredentials(
  settings: TenantSettings,
  operatorToken: string | undefined,
  operatorOwners: readonly string[] | undefined,
): { token: string; owners?: readonly string[] | undefined } | undefined {
  const own = settings.github;
  if (own) return { token: own.token, owners: own.owners.length > 0 ? own.owners : undefined };
  return operatorToken ? { token: operatorToken, owners: operatorOwners } : undefined;
}
