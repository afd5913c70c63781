import type { HourlyQuota } from '../../common/hourly-quota.js';
import { AnalyticsBudgetError } from '../analytics-source.js';

export interface CursorPage<Row> {
  rows: Row[];
  nextCursor?: string | null;
  /** Some endpoints say so besides the cursor; `false` ends paging even with a cursor. */
  hasMore?: boolean;
}

export interface CursorPaged<Row> {
  rows: Row[];
  /** True when rows may be missing: the page cap was hit, or the server repeated itself. */
  partial: boolean;
  requests: number;
}

/**
 * Every page behind a cursor: follows `nextCursor` up to `maxPages` requests, each taking one unit of the
 * hourly budget first. Stops when a page adds no new row (by `keyOf`) or hands back a cursor already used:
 * a server that ignores the cursor would otherwise spend the whole page cap of the budget on copies.
 */
export async function fetchAllCursorPages<Row>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<Row>>,
  options: { maxPages: number; budget: HourlyQuota; keyOf: (row: Row) => string },
): Promise<CursorPaged<Row>> {
  const byKey = new Map<string, Row>();
  const usedCursors = new Set<string>();
  let cursor: string | undefined;
  let requests = 0;
  let more = true;
  let stalled = false;
  while (more && requests < options.maxPages) {
    const slot = await options.budget.take();
    if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
    requests += 1;
    const page = await fetchPage(cursor);
    let added = 0;
    for (const row of page.rows) {
      const key = options.keyOf(row);
      // Rows can shift between pages while data lands: the first sighting wins, none counts twice.
      if (byKey.has(key)) continue;
      byKey.set(key, row);
      added += 1;
    }
    const next = page.nextCursor ?? undefined;
    more = next !== undefined && page.hasMore !== false;
    stalled = more && (added === 0 || usedCursors.has(next as string));
    if (next !== undefined) usedCursors.add(next);
    if (cursor !== undefined) usedCursors.add(cursor);
    more = more && !stalled;
    cursor = next;
  }
  return { rows: [...byKey.values()], partial: more || stalled, requests };
}
