import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { ProjectDirectory } from '../common/projects.js';
import type { AnalyticsSource } from '../insights/analytics-source.js';
import type { HealthEvidence } from '../insights/health/health-evidence.js';
import type { HealthApi } from '../insights/health/ports.js';
import { docsPagePath } from '../insights/page-snapshot/page-link.js';
import { PageSnapshots } from '../insights/page-snapshot/page-snapshot.js';
import type { PageViewsReports } from '../insights/page-views/page-views-reports.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { JobStore } from '../jobs/ports.js';
import type { PullRequestState } from '../jobs/pull-requests/pull-request.js';
import { PullRequestIndex } from '../jobs/pull-requests/pull-request-index.js';
import type { SlackDeps } from '../slack/listeners/deps.js';
import type { AdapterSet } from '../state/adapters.js';

export interface UnfurlWiring {
  /** What the `link_shared` listener uses; absent without DOCS_SITE_URL and GitHub (nothing to preview). */
  deps: SlackDeps['unfurls'];
  /** A job's PR appeared: its link now finds the job (never throws). */
  onPullRequest(record: JobRecord, prLink: string): Promise<void>;
  /** A followed PR merged: the docs pages it changed now name it (never throws). */
  onMerged(record: JobRecord, pr: PullRequestState): Promise<void>;
}

/**
 * Docs-link and PR previews: page snapshots through the shared analytics source, and the PR index kept
 * in the state backend's evidence store under its own `pr-index:` keys (shared by replicas with Redis).
 */
export function wireUnfurls(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'evidenceStore'>;
  store: JobStore;
  apiFor(projectId: string): HealthApi;
  source: AnalyticsSource;
  pageViews: Pick<PageViewsReports, 'views'>;
  evidence: Pick<HealthEvidence, 'save'>;
  projects: Pick<ProjectDirectory, 'projectFor' | 'defaultProjectId'>;
  clock: Clock;
  logger: Logger;
}): UnfurlWiring {
  const { config, adapters, projects } = input;
  const logger = input.logger.child({ component: 'unfurls' });
  const evidenceStore = adapters.evidenceStore;
  const index = new PullRequestIndex({
    store: {
      put: (key, json, ttlMs) => evidenceStore.put(`pr-index:${key}`, json, ttlMs),
      get: (key) => evidenceStore.get(`pr-index:${key}`),
    },
    jobs: input.store,
    webUrl: config.github.webUrl,
    logger,
  });
  const pages = new PageSnapshots({
    pageViews: input.pageViews,
    healthApiFor: input.apiFor,
    source: input.source,
    clock: input.clock,
    maxPages: config.analytics.maxPages,
    // Previews never take the last fifth of the hour's analytics budget: that is left to people asking.
    reserveUnits: Math.floor(config.analytics.hourlyBudget / 5),
    evidence: input.evidence,
    changes: {
      lastMerged: (projectId, path) => index.lastMerged(projectId, projects.defaultProjectId, path),
    },
  });
  const siteUrl = config.docs.siteUrl;
  return {
    deps: {
      pagePath: (url) => docsPagePath(url, siteUrl),
      siteName: siteUrl ? new URL(siteUrl).host : 'docs',
      pages,
      projectFor: (channelId) => projects.projectFor(channelId),
      pullRequests: index,
    },
    onPullRequest: (record, prLink) => index.remember(record, prLink),
    onMerged: (record, pr) => index.rememberMerged(record, pr),
  };
}
