import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capCodePoints, cleanUntrusted, MAX_READER_TEXT } from '../../src/common/untrusted-text.js';
import { normalisePath, normaliseQuestion } from '../../src/insights/health/evidence.js';
import { buildHealthReport } from '../../src/insights/health/report.js';
import { feedbackPageSchema, searchesPageSchema } from '../../src/platform/health-schemas.js';
import { anyHostileText, hasInvisible, INVISIBLE_CHARS, pathologicalText } from '../support/hostile-text.js';
import { replayable } from '../support/property-seed.js';

describe('cleanUntrusted', () => {
  it('removes every invisible class and counts what it removed', () => {
    const dirty = `a${INVISIBLE_CHARS.join('')}b\u2061\u2064`;
    const clean = cleanUntrusted(dirty);
    expect(clean).toEqual({ text: 'ab', removed: INVISIBLE_CHARS.length + 2, cut: false });
  });

  it('caps by code points without splitting a surrogate pair', () => {
    const clean = cleanUntrusted('😀'.repeat(5), 3);
    expect(clean).toEqual({ text: '😀😀😀', removed: 0, cut: true });
    expect(capCodePoints('😀'.repeat(5), 3)).toBe('😀😀😀');
    expect(cleanUntrusted('a\ud800b').text).toBe('a\ufffdb');
  });

  it('leaves no invisible character and never exceeds the cap (property)', () => {
    fc.assert(
      fc.property(anyHostileText(5_000), fc.integer({ min: 0, max: 3_000 }), (text, max) => {
        const clean = cleanUntrusted(text, max);
        expect(hasInvisible(clean.text)).toBe(false);
        expect(Array.from(clean.text).length).toBeLessThanOrEqual(max);
      }),
      replayable('no invisible character, never over the cap', 200),
    );
  });
});

describe('reader text is capped and trimmed in linear time', () => {
  const shapes = fc.sample(pathologicalText(40_000), 60);
  const known = [`${'/'.repeat(40_000)}a`, `${'? '.repeat(40_000)}a`, `${' '.repeat(40_000)}a`];

  it('normalises pathological paths and questions in linear time (a generous batch bound)', () => {
    const inputs = [...known, ...shapes];
    const started = performance.now();
    for (const text of inputs) {
      normalisePath(text);
      normaliseQuestion(text);
    }
    // Before: 1.4 s for the slashes and 16.5 s for `"? "`×40,000 alone. A generous bound for noisy machines.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('builds a report from pathological rows quickly', () => {
    const started = performance.now();
    const report = buildHealthReport({
      dateFrom: '2025-03-03',
      dateTo: '2025-03-10',
      searches: known.map((q) => ({ searchQuery: q, hits: 3, ctr: 0, topClickedPage: null })),
      totalSearches: 9,
      pages: known.map((path) => ({ path, thumbsUp: 0, thumbsDown: 2 })),
      feedback: known.map((path, i) => ({ id: String(i), path, comment: known[i] ?? '' })),
      conversations: known.map((query, i) => ({ id: String(i), query, resolutionStatus: 'unanswered' })),
      partial: [],
      requests: 4,
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    for (const row of report.searches.rows) expect(Array.from(row.query).length).toBeLessThanOrEqual(2000);
  });

  it('keeps the same trimming results as before', () => {
    expect(normaliseQuestion('  How do I  rotate keys?!. ')).toBe('how do i rotate keys');
    expect(normaliseQuestion('?? ')).toBe('');
    expect(normalisePath('/a/b///')).toBe('/a/b');
    expect(normalisePath('///')).toBe('/');
    expect(normalisePath('https://docs.example/a/')).toBe('/a');
    expect(normalisePath('a\u200b/')).toBe('/a');
  });

  it('caps reader strings at the schema (2,000 code points) when parsing', () => {
    const long = 'q'.repeat(40_000);
    const searches = searchesPageSchema.parse({
      searches: [{ searchQuery: long, hits: 1, ctr: 0, topClickedPage: null }],
      totalSearches: 1,
    });
    expect(searches.searches[0]?.searchQuery.length).toBe(MAX_READER_TEXT);
    const feedback = feedbackPageSchema.parse({ feedback: [{ id: '1', path: long, comment: long }] });
    expect(feedback.feedback[0]?.comment?.length).toBe(MAX_READER_TEXT);
    expect(feedback.feedback[0]?.path.length).toBe(MAX_READER_TEXT);
  });
});
