import type { Button, InputBlock, PlainTextInput, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../src/insights/health/evidence.js';
import { decodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import { compareImpact } from '../../src/insights/health/impact.js';
import { fixRequestFor } from '../../src/insights/health/instruction.js';
import type { HealthWindow } from '../../src/insights/health/ports.js';
import { buildHealthReport } from '../../src/insights/health/report.js';
import { healthImpactMessage } from '../../src/slack/messages/health-impact.js';
import { HEALTH_MODAL_CALLBACK, healthFixModal } from '../../src/slack/messages/health-modal.js';
import { healthReportMessage, POST_HEALTH_ACTION } from '../../src/slack/messages/health-report.js';
import { messageButtons } from '../support/message-buttons.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const long = (seed: string, n: number) => `${seed} ${'<ünï>`*_~ 🚀 "q" & '.repeat(n)}`;
const site = 'https://docs.example.com';

function bigWindow(rows: number, textRepeat: number): HealthWindow {
  return {
    dateFrom: '2025-03-03',
    dateTo: '2025-03-10',
    totalSearches: 123_456,
    searches: Array.from({ length: rows }, (_, i) => ({
      searchQuery: long(`query ${i}`, textRepeat),
      hits: 1000 - i,
      ctr: 0,
      topClickedPage: null,
    })),
    pages: Array.from({ length: rows }, (_, i) => ({
      path: `/guides/${long(`page-${i}`, textRepeat).replace(/\s/g, '-')}`,
      thumbsUp: i,
      thumbsDown: 100 - i,
    })),
    feedback: Array.from({ length: rows * 3 }, (_, i) => ({
      id: `f${i}`,
      path: `/guides/${long(`page-${i % rows}`, textRepeat).replace(/\s/g, '-')}`,
      comment: long(`comment ${i}`, textRepeat * 2),
      createdAt: `2025-03-0${(i % 5) + 3}T00:00:00Z`,
    })),
    conversations: Array.from({ length: rows * 2 }, (_, i) => ({
      id: `c${i}`,
      query: long(`question ${i % rows}`, textRepeat),
      timestamp: '2025-03-04T00:00:00Z',
      resolutionStatus: 'unanswered',
    })),
    partial: ['pages'],
    requests: 5,
  };
}

const buttons = (blocks: unknown[]) => messageButtons(blocks);

describe('health report message', () => {
  it.each([
    ['short texts', 1],
    ['long texts', 40],
  ])('25 rows per section with %s pass Slack’s limits, every row with a fix button', (_name, repeat) => {
    const report = buildHealthReport(bigWindow(30, repeat), { top: 25 });
    const message = healthReportMessage(report, {
      siteUrl: site,
      fixButtons: true,
      postValue: '2025-03-03..2025-03-09 top 25',
      requestedBy: 'U123',
    });
    expect(checkMessage(message)).toEqual({ ok: true });
    const fix = buttons(message.blocks).filter((b) => b.action_id?.startsWith('health_fix'));
    expect(fix).toHaveLength(75);
    expect(new Set(fix.map((b) => b.action_id)).size).toBe(75);
    for (const button of fix) {
      expect(button.value!.length).toBeLessThanOrEqual(2000);
      expect(decodeEvidenceRef(button.value!)).toBeDefined();
    }
    expect(buttons(message.blocks).some((b) => b.action_id === POST_HEALTH_ACTION)).toBe(true);
    expect(JSON.stringify(message)).toContain('top 25 of 30');
    // Reader text never pings or links: `<` is escaped.
    const shown = JSON.stringify(message.blocks.filter((b) => b.type !== 'actions'));
    expect(shown).toContain('&lt;ünï&gt;');
    expect(shown).not.toMatch(/<ünï>/);
  });

  it('puts each row’s Fix button beside its row, and writes the range with both days included', () => {
    const report = buildHealthReport(bigWindow(8, 1), { top: 5 });
    const message = healthReportMessage(report, { siteUrl: site, fixButtons: true, postValue: '7d' });
    expect(checkMessage(message)).toEqual({ ok: true });
    const rows = (message.blocks as SectionBlock[]).filter((b) => b.type === 'section' && b.accessory);
    expect(rows).toHaveLength(15);
    for (const [i, row] of rows.entries()) {
      const button = row.accessory as Button;
      expect(button.text.text).toBe('Fix');
      // The button is the row's own: the same rank in its text and its action id.
      const rank = (i % 5) + 1;
      expect(button.action_id).toMatch(new RegExp(`^health_fix_(search|page|question)_${rank}$`));
      expect(row.text?.text).toMatch(new RegExp(`^\\*${rank}\\.\\*`));
    }
    const shown = JSON.stringify(message);
    expect(shown).not.toContain('Fix #');
    expect(message.blocks.filter((b) => b.type === 'actions')).toHaveLength(1); // only "Post to channel"
    const context = JSON.stringify(message.blocks[1]);
    expect(context).toContain('3–9 Mar 2025');
    expect(`${message.text}${context}`).not.toMatch(/exclusive|2025-03-10/);
  });

  it('says so for each empty section, and a report without fix buttons or post value has no buttons', () => {
    const empty = buildHealthReport({ ...bigWindow(0, 1), totalSearches: 0, partial: [] });
    const message = healthReportMessage(empty, { siteUrl: undefined, fixButtons: false });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('No search went without a result in this range.');
    expect(text).toContain('No page got a 👎 in this range.');
    expect(text).toContain('The assistant answered every question in this range.');
    expect(buttons(message.blocks)).toHaveLength(0);
    expect(checkMessage(message)).toEqual({ ok: true });
  });

  it('a channel copy keeps the fix buttons but has no "Post to channel"', () => {
    const report = buildHealthReport(bigWindow(3, 1), { top: 3 });
    const message = healthReportMessage(report, { siteUrl: site, fixButtons: true, requestedBy: 'U123' });
    const ids = buttons(message.blocks).map((b) => b.action_id);
    expect(ids).toContain('health_fix_search_1');
    expect(ids).not.toContain(POST_HEALTH_ACTION);
    expect(JSON.stringify(message)).toContain('Requested by <@U123>');
  });

  it('links flagged pages with DOCS_SITE_URL and shows their latest comment', () => {
    const report = buildHealthReport({
      ...bigWindow(0, 1),
      pages: [{ path: '/auth', thumbsUp: 1, thumbsDown: 4 }],
      feedback: [{ id: '1', path: '/auth', comment: 'Port is wrong', createdAt: '2025-03-04T00:00:00Z' }],
    });
    const text = JSON.stringify(healthReportMessage(report, { siteUrl: site, fixButtons: true }).blocks);
    expect(text).toContain('<https://docs.example.com/auth|/auth>');
    expect(text).toContain('>Port is wrong');
    expect(text).toContain('*4 readers flagged this page* 👎 · 1 found it useful 👍');
  });
});

describe('fix modal', () => {
  it('is a modal with the instruction prefilled within Slack’s limits, for the longest evidence', () => {
    const report = buildHealthReport(bigWindow(3, 200), { top: 3 });
    const evidences: Evidence[] = [
      report.searches.rows[0]!,
      report.pages.rows[0]!,
      report.questions.rows[0]!,
    ];
    for (const evidence of evidences) {
      const view = healthFixModal(evidence, 'C123');
      expect(view.type).toBe('modal');
      expect(view.callback_id).toBe(HEALTH_MODAL_CALLBACK);
      for (const t of [view.title, view.submit!, view.close!])
        expect(Array.from(t.text).length).toBeLessThanOrEqual(24);
      expect(checkMessage({ blocks: view.blocks }, 'modal')).toEqual({ ok: true });
      const input = (view.blocks.find((b) => b.type === 'input') as InputBlock).element as PlainTextInput;
      expect(input.initial_value).toBe(fixRequestFor(evidence));
      expect(input.initial_value).not.toContain('⟦reader input⟧');
      expect(Array.from(input.initial_value!).length).toBeLessThanOrEqual(input.max_length!);
      expect(view.private_metadata!.length).toBeLessThanOrEqual(3000);
      const metadata = JSON.parse(view.private_metadata!) as { channelId: string; evidenceRef: string };
      expect(metadata.channelId).toBe('C123');
      expect(decodeEvidenceRef(metadata.evidenceRef)?.kind).toBe(evidence.kind);
    }
  });
});

describe('impact post', () => {
  it('shows each figure before → after with its direction, within Slack’s limits', () => {
    const base = bigWindow(0, 1);
    const before: HealthWindow = { ...base, pages: [{ path: '/auth', thumbsUp: 1, thumbsDown: 8 }] };
    const after: HealthWindow = { ...base, pages: [{ path: '/auth', thumbsUp: 3, thumbsDown: 2 }] };
    const evidence: Evidence = {
      kind: 'page',
      path: `/auth${'x'.repeat(5000)}`,
      thumbsDown: 8,
      thumbsUp: 1,
      comments: [],
      range: { from: '2025-03-03', toExclusive: '2025-03-10' },
    };
    const model = compareImpact({ ...evidence, path: '/auth' }, before, after, { before: 1000, after: 1500 });
    const message = healthImpactMessage(model);
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('*👎:* 8 → 2 (▼ 75%) ✅');
    expect(text).toContain('*Page views:* 1,000 → 1,500 (▲ 50%)');
    expect(checkMessage(message)).toEqual({ ok: true });
    expect(checkMessage(healthImpactMessage(compareImpact(evidence, before, after)))).toEqual({ ok: true });
  });
});
