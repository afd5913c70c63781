import type { ChartMissing } from '../bucket-reads.js';
import type { PageViewRow, PageViewsTotals, RangePageViews } from '../ports.js';
import type { DateRange } from '../ranges/dates.js';
import type { ViewsTrend } from './views-trend.js';

/** What one report shows: resolved range, sorted pages and totals. Rendering is the Slack adapter's job. */
export interface ReportRequest {
  range: DateRange;
  /** "Last 7 days", "Custom range", … */
  label: string;
  timeZone: string;
  top: number;
  prefix: string | undefined;
  /** The docs project read (absent: DOCS_PROJECT_ID); set from the channel, never from a button value. */
  projectId?: string;
}

export interface RankedPage extends PageViewRow {
  rank: number;
  /**
   * The page's views in the previous period of the same length: 0 when it had none, undefined when that is
   * not known (the period before could not be read, or only its first page of rows was).
   */
  previousTotal?: number;
}

export interface PageViewsReport {
  request: ReportRequest;
  /** Site-wide totals for the range, from the API. */
  totals: PageViewsTotals;
  /** Site-wide totals of the previous period of the same length; undefined when they could not be fetched. */
  previousTotals: PageViewsTotals | undefined;
  /** With a prefix: the sum of the matching pages and how many there are. */
  prefixTotals: (PageViewsTotals & { pages: number }) | undefined;
  top: RankedPage[];
  pagesCounted: number;
  partial: boolean;
  generatedAt: number;
  /** The project to name on the report: set only when several projects are configured. */
  project?: string;
  /** Views per day (bucketed past 20 days) for the chart; absent when they could not be read. */
  trend?: ViewsTrend;
  /**
   * Why a report that should have a chart has none: the analytics budget's reserve, a failed read, or a
   * chart too big to draw with the report (`later`: filled in the background for later reports).
   */
  chartMissing?: ChartMissing;
  /** With `later`: how many analytics reads the chart lacks. */
  chartReads?: number;
}

/** Total views descending; ties by path so the order is stable whatever order the API used. */
export function comparePages(a: PageViewRow, b: PageViewRow): number {
  return b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * `path.toLowerCase().startsWith(lowered)` without lowering the path where its start is ASCII (one code
 * unit each way, no context): a prefix's report filters every one of its range's rows (1,000), and the copy
 * of each path was a tenth of what §1's burst of owed answers allocated (issue 43). Anything else is lowered
 * the exact way.
 */
export function startsWithLowered(path: string, lowered: string): boolean {
  for (let i = 0; i < lowered.length; i++) {
    const c = path.charCodeAt(i);
    // Past the path's end (NaN) or not ASCII: lowering may change lengths (İ) or depend on what follows (Σ).
    if (!(c < 128)) return path.toLowerCase().startsWith(lowered);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lowered.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The previous period's views of a page: its row, else 0 when every page of that period was read, else
 * unknown (rows beyond the first page may hold it).
 */
export function previousViewsOf(
  previous: Pick<RangePageViews, 'pages' | 'partial'> | undefined,
  index: PagesByPath = new WeakMap(),
): (path: string) => number | undefined {
  if (!previous) return () => undefined;
  let byPath = index.get(previous.pages);
  if (!byPath) {
    byPath = new Map<string, number>();
    for (const page of previous.pages)
      byPath.set(page.path, Math.max(byPath.get(page.path) ?? 0, page.total));
    index.set(previous.pages, byPath);
  }
  const found = byPath;
  return (path) => found.get(path) ?? (previous.partial ? undefined : 0);
}

/**
 * Periods' pages by path, built once per list of pages when the caller keeps one across reports: a cached
 * range is one (frozen) list that every report of it reads, and hundreds of reports at once each indexed its
 * 1,000 rows again (issue 43).
 */
export type PagesByPath = WeakMap<readonly PageViewRow[], Map<string, number>>;

export function buildReport(
  request: ReportRequest,
  current: RangePageViews,
  previousTotals: PageViewsTotals | undefined,
  previousPages?: Pick<RangePageViews, 'pages' | 'partial'>,
  index?: PagesByPath,
): PageViewsReport {
  const previousOf = previousViewsOf(previousPages, index);
  const lowered = request.prefix?.toLowerCase();
  const matching = lowered ? current.pages.filter((p) => startsWithLowered(p.path, lowered)) : current.pages;
  const prefixTotals = request.prefix
    ? {
        ...matching.reduce(
          (t, p) => ({ human: t.human + p.human, ai: t.ai + p.ai, total: t.total + p.total }),
          { human: 0, ai: 0, total: 0 },
        ),
        pages: matching.length,
      }
    : undefined;
  return {
    request,
    totals: current.totals,
    previousTotals,
    prefixTotals,
    top: matching.slice(0, request.top).map((page, i) => {
      const previousTotal = previousOf(page.path);
      return { ...page, rank: i + 1, ...(previousTotal === undefined ? {} : { previousTotal }) };
    }),
    pagesCounted: current.pages.length,
    partial: current.partial,
    generatedAt: current.fetchedAt,
  };
}

/** Percentage change, or undefined when there is nothing to compare against. */
export function percentChange(current: number, previous: number | undefined): number | undefined {
  if (previous === undefined || previous === 0) return undefined;
  return ((current - previous) / previous) * 100;
}

export function aiShare(totals: PageViewsTotals): number {
  const base = totals.human + totals.ai;
  return base === 0 ? 0 : (totals.ai / base) * 100;
}

/** Every page of the range (matching the prefix) as CSV, guarded against spreadsheet formula injection. */
export function toCsv(pages: PageViewRow[], prefix: string | undefined): string {
  const lines = ['rank,path,total,human,ai'];
  let rank = 0;
  const lowered = prefix?.toLowerCase();
  for (const page of pages) {
    if (lowered && !startsWithLowered(page.path, lowered)) continue;
    rank += 1;
    lines.push([rank, csvCell(page.path), page.total, page.human, page.ai].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
