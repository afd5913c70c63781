import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HealthEvidence } from '../../src/insights/health/health-evidence.js';
import {
  instructionFor,
  READER_INPUT_CLOSE,
  READER_INPUT_OPEN,
} from '../../src/insights/health/instruction.js';
import { buildHealthReport, type HealthReport } from '../../src/insights/health/report.js';
import { buildReport } from '../../src/insights/page-views/report.js';
import { newJobRecord } from '../../src/jobs/domain/job.js';
import {
  assistantPageSchema,
  feedbackByPageSchema,
  feedbackPageSchema,
  searchesPageSchema,
} from '../../src/platform/health-schemas.js';
import { agentJobSchema, pageViewsSchema } from '../../src/platform/schemas.js';
import { healthFixModal } from '../../src/slack/messages/health-modal.js';
import { healthReportMessage } from '../../src/slack/messages/health-report.js';
import { jobCardMessage } from '../../src/slack/messages/job-card.js';
import { terminalReplyMessage } from '../../src/slack/messages/job-replies.js';
import { pageViewsReportMessage } from '../../src/slack/messages/page-views-report.js';
import { healthHeadline, pageViewsHeadline, weeklyPost } from '../../src/slack/messages/weekly-post.js';
import { createMemoryEvidenceStore } from '../../src/state/keyv-evidence-store.js';
import { anyHostileText, hasInvisible, liveMarkup, specNumber } from '../support/hostile-text.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';
import { recordingLogger } from '../unit/listeners/fakes.js';

const SITE = 'https://docs.example';
const range = { from: '2026-03-03', toExclusive: '2026-03-10' };
const RUNS = {
  numRuns: Number(process.env.FC_RUNS ?? 60),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
};

/** Every `text` string Slack renders (fallback text included), never button values or metadata. */
function rendered(message: { text?: string; blocks: unknown[] }): string {
  const out: string[] = message.text === undefined ? [] : [message.text];
  const walk = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === 'text') out.push(value);
    } else if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(message.blocks);
  return out.join('\n');
}

/** Live markup the bot did not mean: its own docs-site links and its requester mention are allowed. */
const unmeant = (text: string, allowed: (m: string) => boolean = () => false) =>
  liveMarkup(text).filter((m) => !m.startsWith(`<${SITE}/`) && !m.startsWith(SITE) && !allowed(m));

const hostile = anyHostileText(40_000);

/** A health window as the platform could send it, through the real schemas. */
const healthWindow = fc
  .record({
    searches: fc.array(fc.record({ q: hostile, hits: specNumber, ctr: specNumber }), { maxLength: 6 }),
    pages: fc.array(fc.record({ path: hostile, up: specNumber, down: specNumber }), { maxLength: 6 }),
    comments: fc.array(fc.record({ path: hostile, comment: hostile }), { maxLength: 6 }),
    questions: fc.array(hostile, { maxLength: 6 }),
    total: specNumber,
  })
  .map((raw) => {
    const searches = searchesPageSchema.parse({
      searches: raw.searches.map((s) => ({
        searchQuery: s.q,
        hits: s.hits,
        ctr: s.ctr,
        topClickedPage: null,
      })),
      totalSearches: raw.total,
    });
    // Flagged pages need a 👎: some rows get one whatever the generated count.
    const pages = feedbackByPageSchema.parse({
      feedback: raw.pages.map((p, i) => ({ path: p.path, thumbsUp: p.up, thumbsDown: i % 2 ? 3 : p.down })),
      hasMore: false,
    });
    const feedback = feedbackPageSchema.parse({
      feedback: raw.comments.map((c, i) => ({
        id: String(i),
        path: raw.pages[i]?.path ?? c.path,
        comment: c.comment,
      })),
    });
    const conversations = assistantPageSchema.parse({
      conversations: raw.questions.map((query, i) => ({
        id: String(i),
        query,
        resolutionStatus: 'unanswered',
      })),
    });
    return buildHealthReport({
      dateFrom: range.from,
      dateTo: range.toExclusive,
      searches: searches.searches,
      totalSearches: searches.totalSearches,
      pages: pages.feedback,
      feedback: feedback.feedback,
      conversations: conversations.conversations,
      partial: [],
      requests: 4,
    });
  });

const rowsOf = (report: HealthReport) => [
  ...report.searches.rows,
  ...report.pages.rows,
  ...report.questions.rows,
];

describe('hostile reader data (property)', () => {
  it('report and its channel copy: within Block Kit, no live link or mention the bot did not mean', () => {
    fc.assert(
      fc.property(healthWindow, fc.boolean(), (report, withSite) => {
        for (const options of [
          { siteUrl: withSite ? SITE : undefined, fixButtons: true, postValue: 'x' },
          { siteUrl: withSite ? SITE : undefined, fixButtons: true, requestedBy: 'U0BOB' },
        ]) {
          const message = healthReportMessage(report, options);
          expect(checkMessage(message)).toEqual({ ok: true });
          expect(unmeant(rendered(message), (m) => m === '<@U0BOB>')).toEqual([]);
          expect(hasInvisible(rendered(message))).toBe(false);
          // The same report as a weekly post: its headline and footer still within Block Kit, nothing live.
          const weekly = weeklyPost(message, {
            kind: 'health',
            headline: healthHeadline(report),
            setUpBy: 'U0BOB',
          });
          expect(checkMessage(weekly)).toEqual({ ok: true });
          expect(unmeant(rendered(weekly), (m) => m === '<@U0BOB>')).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('agent instruction: no invisible character, every reader item inside one closed block', () => {
    fc.assert(
      fc.property(healthWindow, (report) => {
        for (const row of rowsOf(report)) {
          const text = instructionFor(row);
          expect(hasInvisible(text)).toBe(false);
          for (const line of text.split('\n').filter((l) => l.includes('⟦'))) {
            if (line.startsWith('Everything between')) continue;
            expect(line.startsWith(READER_INPUT_OPEN) && line.endsWith(READER_INPUT_CLOSE)).toBe(true);
            expect(line.split('⟦')).toHaveLength(3);
          }
        }
      }),
      RUNS,
    );
  });

  it('fix modal: within Block Kit and 3,000 metadata, nothing live, nothing invisible in what is sent', async () => {
    const evidence = new HealthEvidence(createMemoryEvidenceStore(recordingLogger().logger));
    await fc.assert(
      fc.asyncProperty(healthWindow, async (report) => {
        for (const row of rowsOf(report)) {
          for (const view of [
            healthFixModal(row, 'C0DOCS', await evidence.save(row)),
            healthFixModal(row, 'C0DOCS'),
          ]) {
            expect(checkMessage({ blocks: view.blocks }, 'modal')).toEqual({ ok: true });
            expect(unmeant(rendered({ blocks: view.blocks }))).toEqual([]);
            expect(JSON.stringify(view).includes('initial_value')).toBe(true);
            // biome-ignore lint/suspicious/noExplicitAny: the input element
            const sent = (view.blocks[1] as any).element.initial_value as string;
            expect(hasInvisible(sent)).toBe(false);
          }
          const withId = healthFixModal(row, 'C0DOCS', await evidence.save(row));
          expect(withId.private_metadata?.length ?? 0).toBeLessThan(100);
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('hostile platform data (property)', () => {
  const platformJob = fc.record({
    id: fc.oneof(hostile, fc.constant('job_1')),
    status: fc.oneof(fc.constantFrom('active', 'completed', 'failed', 'archived'), hostile),
    repository: fc.oneof(
      hostile,
      fc.constant('https://github.com/acme/docs'),
      hostile.map((t) => `https://github.com/${t}/x`),
    ),
    ref: hostile,
    model: hostile,
    prLink: fc.oneof(
      hostile,
      hostile.map((t) => `https://github.com/a/b/pull/1${t}`),
    ),
  });

  it('job card and terminal reply: within Block Kit, no live link or mention but the PR and the requester', () => {
    fc.assert(
      fc.property(platformJob, hostile, (raw, prompt) => {
        const parsed = agentJobSchema.safeParse({
          ...raw,
          source: { repository: raw.repository, ref: raw.ref },
        });
        if (!parsed.success) return; // an id or status that is blank after cleaning: the client rejects the body
        const job = parsed.data;
        const record = newJobRecord(
          {
            jobId: job.id,
            teamId: 'T1',
            channelId: 'C1',
            threadTs: '1.1',
            cardTs: '1.1',
            requesterId: 'U0ALICE',
            prompt,
            origin: 'health_fix',
            status: job.status,
            repository: job.repository,
            ref: job.ref,
            model: job.model,
            prLink: job.prLink,
          },
          0,
        );
        // The bot's own: the requester's mention, the PR link and links into the (well-formed) repository.
        const target = (m: string) => m.replace(/^</, '').replace(/[|>].*$/, '');
        const meant = (m: string) =>
          m === '<@U0ALICE>' ||
          job.prLink?.startsWith(target(m)) ||
          (job.repository !== null && target(m).startsWith(job.repository));
        const card = jobCardMessage({
          requesterId: 'U0ALICE',
          prompt,
          state: { phase: 'tracked', record, now: 5000 },
        });
        expect(checkMessage(card)).toEqual({ ok: true });
        const cardText = rendered({
          text: card.text,
          blocks: card.blocks.filter((b) => b.type !== 'rich_text'),
        });
        expect(unmeant(cardText, meant)).toEqual([]);
        const outcomes = [
          ...(job.prLink ? [{ kind: 'pull_request' as const, prLink: job.prLink }] : []),
          { kind: 'no_changes' as const, previousPrLink: job.prLink },
          { kind: 'failed' as const },
          { kind: 'archived' as const },
        ];
        for (const outcome of outcomes) {
          const reply = terminalReplyMessage(record, outcome, 9000);
          expect(checkMessage(reply)).toEqual({ ok: true });
          expect(unmeant(rendered(reply), meant)).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it('page views report: spec-valid extreme counts and hostile paths never throw, never link', () => {
    const views = fc.array(
      fc.record({ path: hostile, human: specNumber, ai: specNumber, total: specNumber }),
      {
        maxLength: 8,
      },
    );
    fc.assert(
      fc.property(views, specNumber, specNumber, (pages, human, ai) => {
        const body = pageViewsSchema.parse({
          totals: { human, ai, total: human + ai },
          views: pages,
          hasMore: false,
        });
        const report = buildReport(
          { range, label: 'Last 7 days', timeZone: 'UTC', top: 5, prefix: undefined },
          { range, totals: body.totals, pages: body.views, partial: false, requests: 1, fetchedAt: 0 },
          { human: ai, ai: human, total: -1 },
        );
        for (const siteUrl of [undefined, SITE]) {
          const message = pageViewsReportMessage(report, { siteUrl, interactive: true });
          expect(checkMessage(message)).toEqual({ ok: true });
          expect(unmeant(rendered(message))).toEqual([]);
          const weekly = weeklyPost(message, {
            kind: 'page_views',
            headline: pageViewsHeadline(report),
            setUpBy: undefined,
          });
          expect(checkMessage(weekly)).toEqual({ ok: true });
          expect(unmeant(rendered(weekly))).toEqual([]);
        }
      }),
      RUNS,
    );
  });
});
