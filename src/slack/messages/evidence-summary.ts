import type { Evidence } from '../../insights/health/evidence.js';
import { decodeEvidenceRef } from '../../insights/health/evidence-ref.js';
import { formatDayRange } from '../copy/dates.js';
import { untrustedMrkdwn } from '../markup.js';
import { displayCount } from './format.js';
import { oneLine } from './limits.js';

/** Reader text inside mrkdwn: one line, no mentions or links, no code span breaking out. */
const quoted = (text: string, max: number) => untrustedMrkdwn(oneLine(text, max));

/** The gap a job was started from, in a few words (mrkdwn): the modal's intro and the job card's line. */
export function evidenceSummary(e: Evidence): string {
  switch (e.kind) {
    case 'search':
      return `the search “${quoted(e.query, 150)}” (${displayCount(e.hits)} hits, nothing clicked)`;
    case 'page':
      return e.viewsDrop
        ? `the page \`${quoted(e.path, 150)}\` (${displayCount(e.viewsDrop.today)} views in 24 h, median ${displayCount(e.viewsDrop.median)} a day)`
        : `the page \`${quoted(e.path, 150)}\` (${displayCount(e.thumbsDown)} 👎)`;
    case 'question':
      return `the question “${quoted(e.question, 150)}” (asked ${displayCount(e.asked)}×)`;
  }
}

/**
 * The card's line for a job started from a /docs-health gap or a docs-link preview's Fix (its evidence
 * carries the page's views); undefined for any other job.
 */
export function evidenceLine(evidenceRef: string | undefined): string | undefined {
  const evidence = evidenceRef === undefined ? undefined : decodeEvidenceRef(evidenceRef);
  if (!evidence) return undefined;
  const from = evidence.kind === 'page' && evidence.pageViews ? 'a docs-link preview' : '/docs-health';
  return `:mag: From ${from} (${formatDayRange(evidence.range.from, evidence.range.toExclusive)}): ${evidenceSummary(evidence)}`;
}
