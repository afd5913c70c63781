/** Page-view analytics of the fake docs platform (`GET /v1/analytics/{projectId}/views`), as the spec has it. */

export interface ViewRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export interface ViewsBody {
  totals: Omit<ViewRow, 'path'>;
  views: ViewRow[];
  hasMore: boolean;
}

/**
 * The answer for `rows` to a query: 400 for a `limit` outside 1–250, a negative `offset` or a date that is
 * neither `YYYY-MM-DD` nor ISO 8601 (an instant with its offset); else the page and the range's totals.
 */
export function pageViewsAnswer(rows: ViewRow[], query: URLSearchParams): { status: number; body: unknown } {
  const limit = query.has('limit') ? Number(query.get('limit')) : 50;
  const offset = query.has('offset') ? Number(query.get('offset')) : 0;
  const invalid = (message: string) => ({
    status: 400,
    body: { error: 'Invalid query parameters', details: [{ message }] },
  });
  if (!Number.isInteger(limit) || limit < 1 || limit > 250) return invalid('limit must be between 1 and 250');
  if (!Number.isInteger(offset) || offset < 0) return invalid('offset must be >= 0');
  const dateFormat = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
  const isDate = (value: string) => dateFormat.test(value) && !Number.isNaN(Date.parse(value));
  const dateFrom = query.get('dateFrom') ?? '';
  const dateTo = query.get('dateTo') ?? '';
  if ((dateFrom && !isDate(dateFrom)) || (dateTo && !isDate(dateTo)))
    return invalid('dates must be YYYY-MM-DD or ISO 8601');
  const totals = rows.reduce(
    (t, row) => ({ human: t.human + row.human, ai: t.ai + row.ai, total: t.total + row.total }),
    { human: 0, ai: 0, total: 0 },
  );
  const body: ViewsBody = {
    totals,
    views: rows.slice(offset, offset + limit),
    hasMore: offset + limit < rows.length,
  };
  return { status: 200, body };
}

/** `count` page rows with distinct totals, shuffled so the API's order says nothing about rank. */
export function makeViewRows(count: number, seed = 42): ViewRow[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const rows: ViewRow[] = Array.from({ length: count }, (_, i) => {
    const total = (count - i) * 3 + 1;
    const ai = Math.floor(total * random() * 0.6);
    return { path: `/docs/page-${String(i).padStart(5, '0')}`, human: total - ai, ai, total };
  });
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

/**
 * A range's rows from rows per UTC day (`YYYY-MM-DD`): every day whose midnight falls in `[dateFrom, dateTo)`
 * adds its rows, summed per path, so the totals of any range are the sum of its days' totals.
 */
export function rowsOverDays(
  byDay: ReadonlyMap<string, ViewRow[]>,
  dateFrom: string,
  dateTo: string,
): ViewRow[] {
  const from = Date.parse(dateFrom);
  const to = Date.parse(dateTo);
  const byPath = new Map<string, ViewRow>();
  for (const [day, rows] of byDay) {
    const at = Date.parse(`${day}T00:00:00Z`);
    if (!(at >= from && at < to)) continue;
    for (const row of rows) {
      const seen = byPath.get(row.path) ?? { path: row.path, human: 0, ai: 0, total: 0 };
      byPath.set(row.path, {
        path: row.path,
        human: seen.human + row.human,
        ai: seen.ai + row.ai,
        total: seen.total + row.total,
      });
    }
  }
  return [...byPath.values()];
}
