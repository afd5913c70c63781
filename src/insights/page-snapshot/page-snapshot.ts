import type { Clock } from '../../common/clock.js';
import type { AnalyticsSource } from '../analytics-source.js';
import { type HealthRange, normalisePath, type PageEvidence, type ViewCounts } from '../health/evidence.js';
import { MAX_NEARBY } from '../health/evidence-ref.js';
import { fetchHealthWindow } from '../health/fetch-health.js';
import type { HealthEvidence } from '../health/health-evidence.js';
import type { HealthApi, HealthWindow, SearchRow } from '../health/ports.js';
import { flaggedPages, searchGaps } from '../health/report.js';
import type { PageViewsReports } from '../page-views/page-views-reports.js';
import type { RangePageViews } from '../ports.js';
import { type DateRange, DEFAULT_RANGE, previousPeriod, resolveRange } from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';

/** One snapshot per page per hour at most, whatever ANALYTICS_CACHE_TTL_MS says: unfurls must stay cheap. */
export const SNAPSHOT_TTL_MS = 60 * 60 * 1000;
/**
 * Budget units a snapshot needs free before it is read: views of two weeks, searches, feedback by page and
 * feedback (one request each at least). Refused up front otherwise: the unfurl shows no numbers.
 */
export const SNAPSHOT_ESTIMATE = 5;

/** How one docs page is doing: this week against last week, readers' 👎, searches that found nothing. */
export interface PageSnapshot {
  projectId: string;
  path: string;
  /** The last 7 full days (UTC), as `/docs-health` and `/docs-views` read them by default. */
  range: HealthRange;
  previous: HealthRange;
  views: { current: ViewCounts; previous: ViewCounts };
  /** The views of a range may be incomplete (the page cap stopped paging). */
  viewsPartial: boolean;
  thumbsDown: number;
  thumbsUp: number;
  /** The latest readers' comments on the page (cleaned reader text, newest first). */
  comments: string[];
  /** Searches without results near the page (cleaned reader text), most hits first. */
  nearbySearches: Array<{ query: string; hits: number }>;
  /** Invisible characters removed from the reader text shown. */
  removed: number;
  fetchedAt: number;
}

/** The last merged PR of one of our jobs that changed the page (from the files a followed PR changed). */
export interface PageChange {
  prLink: string;
  mergedAt: number;
  /** The job and who asked for it: only where the job's channel is (`changeSeenFrom`). */
  jobId?: string;
  requesterId?: string;
  /** The job's channel (absent in entries recorded before it was kept: then seen from nowhere). */
  channelId?: string;
}

/** A page's last change as a preview in `channelId` shows it: who asked for it only in the job's own channel. */
export function changeSeenFrom(change: PageChange, channelId: string): PageChange {
  if (change.channelId !== undefined && change.channelId === channelId) return change;
  return { prLink: change.prLink, mergedAt: change.mergedAt };
}

/** Where page changes are looked up (src/jobs keeps them; the composition root adapts). */
export interface PageChanges {
  lastMerged(projectId: string, path: string): Promise<PageChange | undefined>;
}

export interface PageSnapshotsOptions {
  pageViews: Pick<PageViewsReports, 'views'>;
  healthApiFor(projectId: string): HealthApi;
  source: AnalyticsSource;
  clock: Clock;
  maxPages: number;
  evidence?: Pick<HealthEvidence, 'save'>;
  changes?: PageChanges;
  /**
   * Budget units previews leave to the commands and weekly posts: a snapshot starts only when its estimate
   * plus these are free (default 0).
   */
  reserveUnits?: number;
}

/** What an unfurl shows: the snapshot, the Fix button's evidence id, and the last change we know of. */
export interface PageUnfurlData {
  snapshot: PageSnapshot;
  evidence: PageEvidence;
  /** The evidence's id in the store (absent when the store failed: the button carries the evidence). */
  evidenceId?: string;
  change?: PageChange;
}

/**
 * Page snapshots for docs-link unfurls: one cached read per page per hour (`SNAPSHOT_TTL_MS`) through the
 * shared analytics source, so its budget, cache and in-flight sharing apply; the reads under it use the
 * same keys as the default `/docs-views` and `/docs-health` reports, so a report just run costs nothing.
 * Budget refusals propagate (`AnalyticsBudgetError`).
 */
export class PageSnapshots {
  constructor(private readonly o: PageSnapshotsOptions) {}

  async forUnfurl(projectId: string, pagePath: string): Promise<PageUnfurlData> {
    const snapshot = await this.snapshot(projectId, pagePath);
    const evidence = evidenceOf(snapshot);
    const [evidenceId, change] = await Promise.all([
      this.o.evidence?.save(evidence).catch(() => undefined),
      this.o.changes?.lastMerged(projectId, snapshot.path).catch(() => undefined),
    ]);
    return { snapshot, evidence, ...(evidenceId ? { evidenceId } : {}), ...(change ? { change } : {}) };
  }

  snapshot(projectId: string, pagePath: string): Promise<PageSnapshot> {
    const path = normalisePath(pagePath);
    const current = resolveRange(DEFAULT_RANGE, this.o.clock.now(), 'UTC');
    const bounds = apiBounds(current);
    const key = {
      endpoint: 'page-snapshot',
      projectId,
      range: `${bounds.dateFrom}..${bounds.dateTo}`,
      params: { path },
    };
    return this.o.source.read(
      key,
      SNAPSHOT_ESTIMATE + (this.o.reserveUnits ?? 0),
      async () => {
        const previous = previousPeriod(current);
        const thisWeek = await this.o.pageViews.views(current, 0, projectId);
        const lastWeek = await this.o.pageViews.views(previous, 0, projectId);
        const window = await fetchHealthWindow(this.o.healthApiFor(projectId), bounds, {
          source: this.o.source,
          projectId,
          maxPages: this.o.maxPages,
          parts: ['searches', 'pages', 'feedback'],
        });
        return buildSnapshot(
          { projectId, path, current, previous, thisWeek, lastWeek, window },
          this.o.clock,
        );
      },
      { ttlMs: SNAPSHOT_TTL_MS },
    );
  }
}

interface SnapshotInput {
  projectId: string;
  path: string;
  current: DateRange;
  previous: DateRange;
  thisWeek: RangePageViews;
  lastWeek: RangePageViews;
  window: HealthWindow;
}

const day = (range: DateRange): HealthRange => ({ from: range.from, toExclusive: range.toExclusive });

/** The page's figures from the site-wide rows. Pure. */
export function buildSnapshot(input: SnapshotInput, clock: Pick<Clock, 'now'>): PageSnapshot {
  const { path, window } = input;
  const range = day(input.current);
  const flagged = flaggedPages(window.pages, window.feedback, range).find(
    (p) => normalisePath(p.path) === path,
  );
  const thumbsUp = window.pages
    .filter((row) => normalisePath(row.path) === path)
    .reduce((sum, row) => sum + (row.thumbsUp > 0 ? row.thumbsUp : 0), 0);
  const gaps = searchGaps(
    window.searches.filter((row) => isNear(row, path)),
    window.totalSearches,
    range,
  ).slice(0, MAX_NEARBY);
  return {
    projectId: input.projectId,
    path,
    range,
    previous: day(input.previous),
    views: { current: viewsOf(input.thisWeek, path), previous: viewsOf(input.lastWeek, path) },
    viewsPartial: input.thisWeek.partial || input.lastWeek.partial,
    thumbsDown: flagged?.thumbsDown ?? 0,
    thumbsUp: flagged?.thumbsUp ?? thumbsUp,
    comments: flagged?.comments ?? [],
    nearbySearches: gaps.map((gap) => ({ query: gap.query, hits: gap.hits })),
    removed: (flagged?.removed ?? 0) + gaps.reduce((sum, gap) => sum + (gap.removed ?? 0), 0),
    fetchedAt: clock.now(),
  };
}

/** The page's views in one range: every spelling of its path (`/a/` and `/a`) counted together. */
function viewsOf(views: RangePageViews, path: string): ViewCounts {
  const rows = views.pages.filter((row) => normalisePath(row.path) === path);
  const sum = (pick: (row: (typeof rows)[number]) => number) =>
    rows.reduce((total, row) => total + (Number.isFinite(pick(row)) ? Math.max(0, pick(row)) : 0), 0);
  return { human: sum((row) => row.human), ai: sum((row) => row.ai) };
}

/** Words of a path or a query: letters and digits, lower case, 3+ characters, at most 12 (capped input). */
function words(text: string): string[] {
  return text
    .slice(0, 500)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3)
    .slice(0, 12);
}

/**
 * A search "lands near" a page when the reader ended up on it (its top clicked page) or when the query
 * shares a word with the page's path (`/guides/rotate-keys` and "rotate api key"). Common path words
 * (docs, guide…) do not count.
 */
export function isNear(row: SearchRow, path: string): boolean {
  if (row.topClickedPage && normalisePath(row.topClickedPage) === path) return true;
  const pathWords = new Set(words(path).filter((word) => !COMMON.has(word)));
  return words(row.searchQuery).some((word) => pathWords.has(word));
}

const COMMON = new Set(['docs', 'doc', 'guide', 'guides', 'api', 'reference', 'index', 'the', 'and', 'how']);

/** The Fix button's evidence: the page's 👎, comments, views and nearby searches over the snapshot's week. */
export function evidenceOf(snapshot: PageSnapshot): PageEvidence {
  return {
    kind: 'page',
    path: snapshot.path,
    thumbsDown: snapshot.thumbsDown,
    thumbsUp: snapshot.thumbsUp,
    comments: snapshot.comments,
    range: snapshot.range,
    pageViews: snapshot.views,
    nearbySearches: snapshot.nearbySearches.map((s) => s.query),
    ...(snapshot.removed > 0 ? { removed: snapshot.removed } : {}),
  };
}
