import type { DataTableBlock, RawNumberElement, RawTextElement, RichTextBlock } from '@slack/types';
import { cleanUntrusted, collapseWhitespace } from '../../common/untrusted-text.js';
import { aiShare, type RankedPage } from '../../insights/page-views/report.js';
import { formatChange, percentChange } from '../copy/changes.js';
import { displayCount } from './format.js';
import { truncate } from './limits.js';

/**
 * Slack's `data_table` block (changelog 2026-05-20, docs.slack.dev "Data table block"): a header row of
 * raw_text cells, then 1 to 100 rows of raw_text, raw_number or rich_text cells, every row as wide; at most
 * 10,000 characters across all cells. `page_size` 1 to 100 (Slack's default 5).
 */
export const TABLE_LIMITS = { rows: 100, chars: 10_000, pageSize: 100 } as const;

/** Room kept under Slack's 10,000 characters: a cell's count is this side's estimate. */
const TABLE_CHARS = 9_000;
const PAGE_SIZE = 10;
const MAX_PATH_CHARS = 150;

type Cell = RawTextElement | RawNumberElement | RichTextBlock;

const grouped = (value: number) => String(displayCount(value)).replace(/\B(?=(\d{3})+$)/g, ',');

/** What a cell costs toward the 10,000: its text, or a rich text cell's whole JSON (an upper bound). */
function cellChars(cell: Cell): number {
  if (cell.type === 'rich_text') return JSON.stringify(cell.elements).length;
  return cell.text.length;
}

/** A page's path as plain text: invisible and bidi characters out, whitespace collapsed, cut. */
function pathLabel(path: string): string {
  const clean = collapseWhitespace(cleanUntrusted(path, 4 * MAX_PATH_CHARS).text).trim();
  return truncate(clean.length > 0 ? clean : '(no path)', MAX_PATH_CHARS);
}

function pageCell(page: RankedPage, urlOf: (path: string) => string | undefined): Cell {
  const text = pathLabel(page.path);
  const url = urlOf(page.path);
  if (!url) return { type: 'raw_text', text };
  return {
    type: 'rich_text',
    elements: [{ type: 'rich_text_section', elements: [{ type: 'link', url, text }] }],
  };
}

/**
 * The page's change on the period before (the copy system's words): a number cell where there is a percent,
 * so the column sorts by it; "new" and "—" (not known) as text.
 */
export function changeCell(page: Pick<RankedPage, 'total' | 'previousTotal'>): Cell {
  const now = displayCount(page.total);
  const before = page.previousTotal === undefined ? undefined : displayCount(page.previousTotal);
  const text = formatChange(now, before, '—');
  const percent = percentChange(now, before);
  if (percent === undefined) return { type: 'raw_text', text };
  return { type: 'raw_number', value: Math.round(percent * 10) / 10, text };
}

function row(page: RankedPage, urlOf: (path: string) => string | undefined): Cell[] {
  // Counts as shown (negatives and non-numbers as 0), so the share is always 0 to 100.
  const share = aiShare({ human: displayCount(page.human), ai: displayCount(page.ai), total: 0 });
  const rounded = Math.round(share * 10) / 10;
  return [
    pageCell(page, urlOf),
    { type: 'raw_number', value: displayCount(page.total), text: grouped(page.total) },
    changeCell(page),
    { type: 'raw_number', value: rounded, text: `${rounded.toFixed(1)}%` },
  ];
}

const HEADER: Cell[] = ['Page', 'Views', 'vs last period', 'AI %'].map((text) => ({
  type: 'raw_text',
  text,
}));

/**
 * The top pages as a `data_table` (Page · Views · vs last period · AI %), as many rows as fit both Slack's limits
 * and `room` characters of the message's total text; undefined when no row fits. `caption(k)` names the
 * k rows shown.
 */
export function topPagesTable(
  pages: readonly RankedPage[],
  urlOf: (path: string) => string | undefined,
  room: number,
  caption: (shown: number) => string,
): { block: DataTableBlock; shown: number } | undefined {
  const budget = Math.min(TABLE_CHARS, room - 200);
  const cost = (cells: Cell[]) => cells.reduce((sum, cell) => sum + cellChars(cell), 0);
  const shown = pages.slice(0, TABLE_LIMITS.rows);
  const linked = shown.map((page) => row(page, urlOf));
  const plain = shown.map((page) => row(page, () => undefined));
  // Links cost characters: the first rows keep theirs while the rest still fit as plain rows (as the list).
  let plainRest = plain.reduce((sum, cells) => sum + cost(cells), 0);
  let used = cost(HEADER);
  const rows: Cell[][] = [];
  for (const [i, cells] of linked.entries()) {
    plainRest -= cost(plain[i]!);
    const pick = used + cost(cells) + plainRest <= budget ? cells : plain[i]!;
    if (used + cost(pick) > budget) break;
    used += cost(pick);
    rows.push(pick);
  }
  if (rows.length === 0) return undefined;
  return {
    block: {
      type: 'data_table',
      block_id: 'top_pages',
      // The caption may name the reader's prefix: plain text, cleaned like a path.
      caption: truncate(collapseWhitespace(cleanUntrusted(caption(rows.length), 800).text).trim(), 200),
      rows: [HEADER, ...rows],
      page_size: Math.min(PAGE_SIZE, rows.length),
    },
    shown: rows.length,
  };
}
