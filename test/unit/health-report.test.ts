import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../src/insights/health/evidence.js';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import { compareImpact } from '../../src/insights/health/impact.js';
import { instructionFor, MAX_INSTRUCTION_CHARS } from '../../src/insights/health/instruction.js';
import type { HealthWindow } from '../../src/insights/health/ports.js';
import { buildHealthReport, clampTop } from '../../src/insights/health/report.js';

const range = { from: '2025-03-03', toExclusive: '2025-03-10' };

function window(overrides: Partial<HealthWindow> = {}): HealthWindow {
  return {
    dateFrom: range.from,
    dateTo: range.toExclusive,
    searches: [],
    totalSearches: 0,
    pages: [],
    feedback: [],
    conversations: [],
    partial: [],
    requests: 4,
    ...overrides,
  };
}

const search = (searchQuery: string, hits: number, ctr: number, topClickedPage: string | null) => ({
  searchQuery,
  hits,
  ctr,
  topClickedPage,
});
const ask = (id: string, query: string, timestamp: string, resolutionStatus = 'unanswered') => ({
  id,
  query,
  timestamp,
  resolutionStatus,
});

describe('health report model', () => {
  it('keeps searches that found nothing (no clicked page or ctr 0), by hits, with their share', () => {
    const report = buildHealthReport(
      window({
        totalSearches: 200,
        searches: [
          search('found', 90, 0.4, '/a'),
          search('clicked nothing', 30, 0, '/b'),
          search('no page', 50, 0.2, null),
          search('   ', 70, 0, null),
        ],
      }),
    );
    expect(report.searches.rows.map((r) => [r.query, r.hits, r.share])).toEqual([
      ['no page', 50, 0.25],
      ['clicked nothing', 30, 0.15],
    ]);
    expect(report.searches.total).toBe(2);
  });

  it('flags pages with 👎 by 👎 descending, with the latest distinct comments (path or URL alike)', () => {
    const report = buildHealthReport(
      window({
        pages: [
          { path: '/ok', thumbsUp: 9, thumbsDown: 0 },
          { path: '/install', thumbsUp: 1, thumbsDown: 3 },
          { path: '/auth/', thumbsUp: 0, thumbsDown: 7 },
        ],
        feedback: [
          {
            id: '1',
            path: 'https://docs.example.com/auth',
            comment: 'oldest',
            createdAt: '2025-03-03T00:00:00Z',
          },
          { id: '2', path: '/auth', comment: '  newest  ', createdAt: '2025-03-06T00:00:00Z' },
          { id: '3', path: '/auth', comment: 'middle', createdAt: '2025-03-05T00:00:00Z' },
          { id: '4', path: '/auth', comment: 'second', createdAt: '2025-03-05T12:00:00Z' },
          { id: '5', path: '/auth', comment: null, createdAt: '2025-03-07T00:00:00Z' },
          { id: '6', path: '/ok', comment: 'not flagged', createdAt: '2025-03-07T00:00:00Z' },
        ],
      }),
    );
    expect(report.pages.rows.map((p) => [p.path, p.thumbsDown, p.comments])).toEqual([
      ['/auth/', 7, ['newest', 'second', 'middle']],
      ['/install', 3, []],
    ]);
  });

  it('counts a question once however it was typed, shows its latest wording, most asked first', () => {
    const report = buildHealthReport(
      window({
        conversations: [
          ask('1', 'How do I rotate keys?', '2025-03-03T00:00:00Z'),
          ask('2', 'how do i   ROTATE keys', '2025-03-05T00:00:00Z'),
          ask('3', '  How do I rotate keys ?? ', '2025-03-04T00:00:00Z'),
          ask('4', 'Is there SSO?', '2025-03-04T00:00:00Z'),
          ask('5', 'Is there SSO?', '2025-03-04T00:00:00Z', 'answered'),
          ask('6', 'Webhooks retries', '2025-03-04T00:00:00Z'),
          ask('7', 'webhooks retries.', '2025-03-02T00:00:00Z'),
        ],
      }),
    );
    expect(report.questions.rows.map((q) => [q.question, q.asked])).toEqual([
      ['how do i ROTATE keys', 3],
      ['Webhooks retries', 2],
      ['Is there SSO?', 1],
    ]);
  });

  it('cuts each section to top N (1–25, default 5) and keeps the total', () => {
    const searches = Array.from({ length: 40 }, (_, i) => search(`q${i}`, i + 1, 0, null));
    expect(buildHealthReport(window({ searches })).searches.rows).toHaveLength(5);
    const top25 = buildHealthReport(window({ searches }), { top: 99 });
    expect(top25.searches.rows).toHaveLength(25);
    expect(top25.searches.rows[0]?.query).toBe('q39');
    expect(top25.searches.total).toBe(40);
    expect([clampTop(0), clampTop(3.7), clampTop(undefined)]).toEqual([1, 3, 5]);
  });

  it('reports empty sections as empty and passes partial sources on', () => {
    const report = buildHealthReport(window({ partial: ['pages'] }));
    expect([report.searches.total, report.pages.total, report.questions.total]).toEqual([0, 0, 0]);
    expect(report.partial).toEqual(['pages']);
  });
});

const longText = (n: number) => `${'ünïcødé 🚀 "quoted" <b> '.repeat(n)}`;

describe('instruction for the agent', () => {
  const cases: Evidence[] = [
    { kind: 'search', query: 'sso setup', hits: 42, ctr: 0, share: 0.05, range },
    { kind: 'page', path: '/auth', thumbsDown: 7, thumbsUp: 1, comments: ['Port is wrong'], range },
    { kind: 'question', question: 'How do I rotate keys?', asked: 3, range },
  ];

  it('names the evidence and says it came from readers’ data', () => {
    const [s, p, q] = cases.map(instructionFor);
    expect(s).toContain("From readers' data");
    expect(s).toContain('searched 42 times, 5.0% of all searches');
    expect(s).toContain('⟦reader input⟧ sso setup ⟦end of reader input⟧');
    expect(p).toContain('got 7 👎 and 1 👍');
    expect(p).toContain('⟦reader input⟧ /auth ⟦end of reader input⟧');
    expect(p).toContain('⟦reader input⟧ Port is wrong ⟦end of reader input⟧');
    expect(q).toContain('this question 3 times');
    expect(q).toContain('⟦reader input⟧ How do I rotate keys? ⟦end of reader input⟧');
    expect(q).toContain('2025-03-03 up to 2025-03-10');
  });

  it('stays within the modal input however long the evidence', () => {
    const page: Evidence = {
      kind: 'page',
      path: longText(200),
      thumbsDown: 1,
      thumbsUp: 0,
      comments: [longText(100), longText(100), longText(100)],
      range,
    };
    for (const evidence of [page, { ...cases[0]!, query: longText(500) } as Evidence]) {
      expect(Array.from(instructionFor(evidence)).length).toBeLessThanOrEqual(MAX_INSTRUCTION_CHARS);
    }
  });
});

describe('evidence reference (button value)', () => {
  it('round-trips and stays ≤ 2000 characters for hostile lengths and escapes', () => {
    const evidences: Evidence[] = [
      { kind: 'search', query: '\u0001"'.repeat(3000), hits: 1, ctr: 0, share: undefined, range },
      {
        kind: 'page',
        path: longText(300),
        thumbsDown: 2,
        thumbsUp: 1,
        comments: [longText(80), longText(80)],
        range,
      },
      { kind: 'question', question: 'Short?', asked: 2, range },
    ];
    for (const evidence of evidences) {
      const value = encodeEvidenceRef(evidence);
      expect(value.length).toBeLessThanOrEqual(2000);
      expect(decodeEvidenceRef(value)?.kind).toBe(evidence.kind);
    }
    expect(decodeEvidenceRef(encodeEvidenceRef(evidences[2]!))).toEqual(evidences[2]);
    const page = decodeEvidenceRef(encodeEvidenceRef(evidences[1]!));
    expect(page?.kind === 'page' && page.comments.length).toBeGreaterThan(0);
  });

  it('refuses values it did not write', () => {
    expect(decodeEvidenceRef('not json')).toBeUndefined();
    expect(decodeEvidenceRef(JSON.stringify({ kind: 'search', query: 'x' }))).toBeUndefined();
    expect(decodeEvidenceRef(JSON.stringify({ kind: 'other', range }))).toBeUndefined();
  });
});

describe('impact comparison', () => {
  const before = window({ dateFrom: '2025-02-17', dateTo: '2025-03-03' });
  const after = window({ dateFrom: '2025-03-03', dateTo: '2025-03-17' });

  it('measures a search, a page and a question again, with deltas and direction', () => {
    before.searches = [search('sso', 40, 0, null)];
    after.searches = [search('sso', 50, 0.5, '/sso')];
    before.pages = [{ path: '/auth', thumbsUp: 1, thumbsDown: 8 }];
    after.pages = [{ path: '/auth/', thumbsUp: 4, thumbsDown: 2 }];
    before.conversations = [ask('1', 'Keys?', 'a'), ask('2', 'keys', 'b')];
    after.conversations = [ask('3', 'keys', 'c'), ask('4', 'keys', 'd', 'answered')];

    const s = compareImpact(
      { kind: 'search', query: 'sso', hits: 40, ctr: 0, share: 1, range },
      before,
      after,
    );
    expect(s.metrics).toEqual([
      { name: 'hits', before: 40, after: 50, delta: 10, change: 0.25, improved: undefined },
      { name: 'ctr', before: 0, after: 0.5, delta: 0.5, change: undefined, improved: true },
    ]);
    const p = compareImpact(
      { kind: 'page', path: '/auth', thumbsDown: 8, thumbsUp: 1, comments: [], range },
      before,
      after,
      { before: 100, after: 150 },
    );
    expect(p.metrics.map((m) => [m.name, m.before, m.after, m.improved])).toEqual([
      ['thumbsDown', 8, 2, true],
      ['thumbsUp', 1, 4, true],
      ['pageViews', 100, 150, undefined],
    ]);
    const q = compareImpact({ kind: 'question', question: 'Keys?', asked: 2, range }, before, after);
    expect(q.metrics).toEqual([
      { name: 'asked', before: 2, after: 1, delta: -1, change: -0.5, improved: true },
    ]);
    expect(q.after).toEqual({ from: '2025-03-03', toExclusive: '2025-03-17' });
  });

  it('counts a gap that vanished as 0, not as missing', () => {
    const q = compareImpact({ kind: 'question', question: 'Gone?', asked: 3, range }, window(), window());
    expect(q.metrics[0]).toMatchObject({ before: 0, after: 0, delta: 0, improved: undefined });
  });
});
