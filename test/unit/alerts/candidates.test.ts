import { describe, expect, it } from 'vitest';
import { findCandidates } from '../../../src/insights/alerts/candidates.js';
import {
  type DaySignals,
  daySignals,
  historyOf,
  MAX_KEYS_PER_KIND,
  type SignalKind,
} from '../../../src/insights/alerts/signals.js';
import type { Evidence } from '../../../src/insights/health/evidence.js';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../../src/insights/health/evidence-ref.js';
import { instructionFor } from '../../../src/insights/health/instruction.js';
import { evidenceSummary } from '../../../src/slack/messages/evidence-summary.js';

const range = { from: '2026-11-26', toExclusive: '2026-11-27' };
const page = (path: string): Evidence => ({
  kind: 'page',
  path,
  thumbsDown: 0,
  thumbsUp: 0,
  comments: [],
  range,
});

function day(i: number, counts: Partial<DaySignals['counts']>, partial: SignalKind[] = []): DaySignals {
  return {
    day: `2026-10-${String(i + 1).padStart(2, '0')}`,
    counts: { search: {}, page: {}, question: {}, traffic: {}, ...counts },
    partial,
  };
}

const history = Array.from({ length: 28 }, (_, i) =>
  day(i, {
    traffic: { '/quickstart': 880 + (i % 5) * 10, '/tiny': 3 },
    search: i % 9 === 0 ? { sso: 1 } : {},
  }),
);

describe('findCandidates', () => {
  it('finds a top page whose views collapsed, with its page row as evidence, and skips small pages', () => {
    const today = day(30, { traffic: { '/quickstart': 50 } });
    const found = findCandidates(history, today, (kind, key) => (kind === 'traffic' ? page(key) : undefined));
    expect(found.map((c) => [c.kind, c.key])).toEqual([['traffic', '/quickstart']]);
    expect(found[0]!.comparison).toMatchObject({ direction: 'drop', today: 50, expected: 900 });
    expect(found[0]!.trend).toHaveLength(29);
    expect(found[0]!.trend.at(-1)).toEqual({ day: today.day, value: 50, today: true });
  });

  it('says nothing about traffic when today’s page views were partial, or a signal without evidence', () => {
    const today = day(30, { traffic: {}, search: { sso: 9 } }, ['traffic']);
    expect(findCandidates(history, today, () => undefined)).toEqual([]);
    const found = findCandidates(history, today, (kind, key) => (kind === 'search' ? page(key) : undefined));
    expect(found.map((c) => c.signalId)).toEqual(['search:sso']);
  });
});

describe('stored days', () => {
  it('a day keeps its busiest keys; a missing key is 0 on a complete day, its smallest kept value on a cut one, unknown on a partial one', () => {
    const many = Object.fromEntries(Array.from({ length: MAX_KEYS_PER_KIND }, (_, i) => [`t${i}`, i + 2]));
    const days = [day(0, { search: { a: 3 } }), day(1, { search: many }), day(2, {}, ['search'])];
    expect(historyOf('search', 'zzz', days)).toEqual([0, 2]);
    expect(historyOf('search', 'a', days)).toEqual([3, 2]);
  });

  it('reduces a window to counts per signal, reader text cleaned as /docs-health cleans it', () => {
    const signals = daySignals(
      '2026-11-01',
      {
        dateFrom: '2026-11-01',
        dateTo: '2026-11-02',
        searches: [
          { searchQuery: 'web\u200bhooks', hits: 4, ctr: 0, topClickedPage: null },
          { searchQuery: 'found', hits: 9, ctr: 0.5, topClickedPage: '/a' },
        ],
        totalSearches: 13,
        pages: [{ path: '/a/', thumbsUp: 1, thumbsDown: 2 }],
        feedback: [],
        conversations: [
          { id: '1', query: 'How do I X?', resolutionStatus: 'unanswered' },
          { id: '2', query: 'how do i  x', resolutionStatus: 'unanswered' },
        ],
        partial: ['conversations'],
        requests: 4,
      },
      { pages: [{ path: '/a', human: 5, ai: 1, total: 6 }], partial: false },
    );
    expect(signals.counts).toEqual({
      search: { webhooks: 4 },
      page: { '/a': 2 },
      question: { 'how do i x': 2 },
      traffic: { '/a': 6 },
    });
    expect(signals.partial).toEqual(['question']);
  });
});

describe('a traffic alert’s Fix', () => {
  it('names the drop in the form and on the card, and keeps it through the button and the job record', () => {
    const today = day(30, { traffic: { '/quickstart': 50 } });
    const [found] = findCandidates(history, today, (_kind, key) => page(key));
    const instruction = instructionFor(found!.evidence);
    expect(instruction).toContain(
      "This page's views collapsed: 50 in the last 24 hours against a median of 900 a day",
    );
    expect(instruction).toContain('no longer reach this page');
    const decoded = decodeEvidenceRef(encodeEvidenceRef(found!.evidence));
    expect(decoded).toMatchObject({ kind: 'page', viewsDrop: { today: 50, median: 900 } });
    expect(evidenceSummary(decoded!)).toContain('50 views in 24 h, median 900 a day');
    // A 👎 row keeps its old wording.
    expect(instructionFor(page('/a'))).toContain('This page got 0 👎 and 0 👍');
  });
});
