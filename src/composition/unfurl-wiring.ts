import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import { type Lazy, lazily, lazyObject } from '../common/lazily.js';
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
 * The index is built at a job's first PR, the previews (and the reports under them) at the first link
 * shared: a tenant that never does either builds neither (issue 43 §2).
 */
export function wireUnfurls(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'evidenceStore'>;
  store: JobStore;
  apiFor(projectId: string): HealthApi;
  /** The scope's reports (their source, page views and evidence), built on first use. */
  reports: Lazy<{
    source: AnalyticsSource;
    pageViews: Pick<PageViewsReports, 'views'>;
    evidence: Pick<HealthEvidence, 'save'>;
  }>;
  projects: Pick<ProjectDirectory, 'projectFor' | 'defaultProjectId'>;
  clock: Clock;
  logger: Logger;
}): UnfurlWiring {
  const { config, adapters, projects } = input;
  const evidenceStore = adapters.evidenceStore;
  const index = lazily(
    () =>
      new PullRequestIndex({
        store: {
          put: (key, json, ttlMs) => evidenceStore.put(`pr-index:${key}`, json, ttlMs),
          get: (key) => evidenceStore.get(`pr-index:${key}`),
        },
        jobs: input.store,
        webUrl: config.github.webUrl,
        logger: input.logger.child({ component: 'unfurls' }),
      }),
  );
  const previews = (): NonNullable<SlackDeps['unfurls']> => {
    const { source, pageViews, evidence } = input.reports.get();
    const pages = new PageSnapshots({
      pageViews,
      healthApiFor: input.apiFor,
      source,
      clock: input.clock,
      maxPages: config.analytics.maxPages,
      // Previews never take the last fifth of the hour's analytics budget: that is left to people asking.
      reserveUnits: Math.floor(config.analytics.hourlyBudget / 5),
      evidence,
      changes: {
        lastMerged: (projectId, path) => index.get().lastMerged(projectId, projects.defaultProjectId, path),
      },
    });
    const siteUrl = config.docs.siteUrl;
    return {
      pagePath: (url) => docsPagePath(url, siteUrl),
      siteName: siteUrl ? new URL(siteUrl).host : 'docs',
      pages,
      projectFor: (channelId) => projects.projectFor(channelId),
      pullRequests: index.get(),
    };
  };
  return {
    deps: lazyObject(previews),
    onPullRequest: (record, prLink) => index.get().remember(record, prLink),
    onMerged: (record, pr) => index.get().rememberMerged(record, pr),
  };
}
