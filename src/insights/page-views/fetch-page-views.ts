import type { HourlyQuota } from '../../common/hourly-quota.js';
import { AnalyticsBudgetError } from '../analytics-source.js';
import type { PageViewRow, PageViewsApi, RangePageViews } from '../ports.js';
import type { DateRange } from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';
import { comparePages } from './report.js';

/** The API's largest page: the fewest requests per report. */
export const PAGE_SIZE = 250;

export { AnalyticsBudgetError };

/**
 * Every page of a range: `limit=250`, following `hasMore` (offset += limit) up to `maxPages` requests or
 * until a page adds no new path, then sorted by total views (the API's order means nothing). Each request spends one unit of budget.
 */
export async function fetchRangeViews(
  api: PageViewsApi,
  range: DateRange,
  options: { maxPages: number; budget: HourlyQuota; now: () => number; pageSize?: number },
): Promise<RangePageViews> {
  const limit = options.pageSize ?? PAGE_SIZE;
  const bounds = apiBounds(range);
  const byPath = new Map<string, PageViewRow>();
  let totals = { human: 0, ai: 0, total: 0 };
  let offset = 0;
  let requests = 0;
  let hasMore = true;
  let stalled = false;
  while (hasMore && requests < options.maxPages) {
    const slot = await options.budget.take();
    if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
    requests += 1;
    const page = await api.getPageViews({ ...bounds, limit, offset });
    totals = page.totals;
    let newPaths = 0;
    for (const row of page.views) {
      // Rows can shift between pages if data lands mid-paging; never count a path twice.
      const seen = byPath.get(row.path);
      if (!seen) newPaths += 1;
      if (!seen || row.total > seen.total) byPath.set(row.path, { ...row });
    }
    // A page that adds no new path means the server ignores the offset (or repeats itself): following its
    // `hasMore` would spend the whole page cap of the hourly budget on copies.
    stalled = page.hasMore && newPaths === 0;
    hasMore = page.hasMore && !stalled;
    offset += limit;
  }
  return {
    range,
    totals,
    pages: [...byPath.values()].sort(comparePages),
    // A stalled server still claimed more rows: what was read may not be every page.
    partial: hasMore || stalled,
    requests,
    fetchedAt: options.now(),
  };
}
