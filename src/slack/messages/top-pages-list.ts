import type { RankedPage } from '../../insights/page-views/report.js';
import { formatChange } from '../copy/changes.js';
import { defuseLinks, untrustedMrkdwn } from '../markup.js';
import { displayCount, docsPageUrl, mrkdwnLink } from './format.js';
import { LIMITS, oneLine, truncate } from './limits.js';

const BAR_CELLS = 10;
const MAX_PATH_CHARS = 150;
/** Longer page URLs are shown as text: 50 lines must fit in a few sections. */
const MAX_LINK_URL_CHARS = 500;

/**
 * `1,502,500`: en-US grouping; plain integers without Intl (a report formats dozens of numbers). The spec
 * types counts as any number, so fractions are rounded for display.
 */
export const n = (value: number) => {
  const rounded = displayCount(value);
  return Number.isSafeInteger(rounded)
    ? String(rounded).replace(/\B(?=(\d{3})+$)/g, ',')
    : rounded.toLocaleString('en-US');
};

/** `█████░░░░░`: the human (█) and AI (░) split of a page's views. */
export function splitBar(human: number, ai: number, cells = BAR_CELLS): string {
  // Spec-valid negatives (`-107`) once made `repeat` throw: the bar is drawn from counts clamped at 0.
  const h = displayCount(human);
  const all = h + displayCount(ai);
  const humanCells = all === 0 ? 0 : Math.min(cells, Math.max(0, Math.round((h / all) * cells)));
  return `${'█'.repeat(humanCells)}${'░'.repeat(cells - humanCells)}`;
}

export function pageUrl(siteUrl: string | undefined, path: string): string | undefined {
  return docsPageUrl(siteUrl, path, MAX_LINK_URL_CHARS);
}

/** `1 page`, `1,204 pages`. */
export function plural(count: number, noun: string): string {
  return `${n(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** The table's "vs last period" in words: "▲ 12% on last period", "new this period"; nothing when not known. */
export function changeWords(page: Pick<RankedPage, 'total' | 'previousTotal'>): string {
  if (page.previousTotal === undefined) return '';
  const change = formatChange(displayCount(page.total), displayCount(page.previousTotal), '');
  if (change === 'new') return ' · new this period';
  return change ? ` · ${change} on last period` : '';
}

function pageLine(page: RankedPage, siteUrl: string | undefined): string {
  const label = truncate(oneLine(page.path, MAX_PATH_CHARS), MAX_PATH_CHARS);
  const url = pageUrl(siteUrl, page.path);
  // Paths are outside text: defused as link labels and as code (Slack links bare URLs and domains).
  const path = url ? mrkdwnLink(url, defuseLinks(label)) : `\`${untrustedMrkdwn(label)}\``;
  return `*${page.rank}.* ${path}  *${n(page.total)}*  \`${splitBar(page.human, page.ai)}\` ${n(page.human)} human · ${n(page.ai)} AI${changeWords(page)}`;
}

/**
 * The title and as many rows as fit in `budget` characters and `sections` section blocks; the title is
 * written for the number of rows shown.
 */
function fitRows(lines: string[], budget: number, sections: number, title: (k: number) => string): string[] {
  let count = lines.length;
  for (;;) {
    const candidate = [title(count), ...lines.slice(0, count)];
    const packed = packLines(candidate);
    if (count === 0 || (packed.join('').length <= budget && packed.length <= sections)) return candidate;
    count -= 1;
  }
}

/** Lines packed into as few sections as fit Slack's 3,000-character section limit. */
function packLines(lines: string[]): string[] {
  const sections: string[] = [];
  let current = '';
  for (const line of lines) {
    const safe = truncate(line, LIMITS.sectionText);
    if (current && current.length + 1 + safe.length > LIMITS.sectionText) {
      sections.push(current);
      current = safe;
    } else {
      current = current ? `${current}\n${safe}` : safe;
    }
  }
  if (current) sections.push(current);
  return sections;
}

/**
 * The ranked pages as mrkdwn section texts within `budget` characters and `room` sections (the first rows
 * keep their links while the rest still fit as plain rows), and what was left out, in words.
 */
export function topPagesList(
  top: readonly RankedPage[],
  siteUrl: string | undefined,
  budget: number,
  room: number,
  under: string,
): { texts: string[]; rows: number; notes: string[] } {
  const linked = top.map((p) => pageLine(p, siteUrl));
  const plain = siteUrl ? top.map((p) => pageLine(p, undefined)) : linked;
  // Links cost characters: the first rows keep theirs while the rest still fit as plain rows.
  let plainRest = plain.reduce((sum, line) => sum + line.length + 1, 0);
  let used = 0;
  let linkedRows = 0;
  const lines = top.map((_, i) => {
    plainRest -= plain[i]!.length + 1;
    const line = used + linked[i]!.length + 1 + plainRest <= budget ? linked[i]! : plain[i]!;
    if (line === linked[i]) linkedRows = i + 1;
    used += line.length + 1;
    return line;
  });
  const shown = fitRows(lines, budget, room, (k) => `*Top ${plural(k, 'page')}${under}* (█ human · ░ AI)`);
  const rows = shown.length - 1;
  const notes: string[] = [];
  if (rows < top.length) notes.push(`Showing the top ${rows} of ${plural(top.length, 'page')}`);
  if (siteUrl && linkedRows < Math.min(rows, top.length))
    notes.push(`${linkedRows === 0 ? 'pages' : `pages ${linkedRows + 1}–${rows}`} are shown without links`);
  return { texts: packLines(shown), rows, notes };
}
