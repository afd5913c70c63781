import { describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import type { NewDelivery } from '../../src/delivery/domain.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import type { Evidence } from '../../src/insights/health/evidence.js';
import { encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import { HealthImpact } from '../../src/insights/health/health-impact.js';
import { compareImpact, type ImpactModel, impactWindows } from '../../src/insights/health/impact.js';
import type { HealthApi, ImpactCheck, ImpactPublisher } from '../../src/insights/health/ports.js';
import type { RangePageViews } from '../../src/insights/ports.js';
import { SlackImpactPublisher } from '../../src/slack/impact-publisher.js';
import { healthImpactMessage } from '../../src/slack/messages/health-impact.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { MAX_TIMER_MS, MemoryImpactQueue } from '../../src/state/memory/memory-impact-queue.js';
import { ManualTimers } from '../support/manual-timers.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const DAY = 24 * 60 * 60 * 1000;
const PR_SEEN = Date.parse('2026-03-10T15:30:00Z');
const range = { from: '2026-03-01', toExclusive: '2026-03-08' };
const search: Evidence = { kind: 'search', query: 'sso setup', hits: 40, ctr: 0, share: 0.1, range };
const page: Evidence = {
  kind: 'page',
  path: '/guides/auth',
  thumbsDown: 9,
  thumbsUp: 2,
  comments: [],
  range,
};

const check = (evidence: Evidence, jobId = 'job-1'): ImpactCheck => ({
  jobId,
  channelId: 'C1',
  threadTs: '1.000',
  evidenceRef: encodeEvidenceRef(evidence),
  prLink: 'https://github.com/acme/docs/pull/7',
  prSeenAt: PR_SEEN,
});

describe('impactWindows', () => {
  it('compares the N full days after the PR day with the N days before it, due once they are over', () => {
    const w = impactWindows(PR_SEEN, 14);
    expect(w.after).toEqual({ from: '2026-03-11', toExclusive: '2026-03-25' });
    expect(w.before).toEqual({ from: '2026-02-24', toExclusive: '2026-03-10' });
    expect(new Date(w.dueAt).toISOString()).toBe('2026-03-25T02:00:00.000Z');
    // One day: the day after the PR against the day before it; across a month end.
    const one = impactWindows(Date.parse('2026-02-28T23:59:00Z'), 1);
    expect(one.after).toEqual({ from: '2026-03-01', toExclusive: '2026-03-02' });
    expect(one.before).toEqual({ from: '2026-02-27', toExclusive: '2026-02-28' });
  });
});

describe('MemoryImpactQueue', () => {
  it('chains timers past 24.8 days, runs each job once, and retries with the delay the handler asks', async () => {
    const timers = new ManualTimers(0);
    // Node would fire a longer timer at once (overflow): every wait asked for must fit.
    const asked: number[] = [];
    const setTimer = timers.setTimeout;
    timers.setTimeout = (callback, ms) => {
      asked.push(ms);
      return setTimer(callback, ms);
    };
    const queue = new MemoryImpactQueue(logger, timers);
    const runs: Array<[string, number, number]> = [];
    const answers = [60_000, null];
    queue.start(async (c, attempt) => {
      runs.push([c.jobId, attempt, timers.now()]);
      return answers.shift() ?? null;
    });
    const dueAt = 30 * DAY;
    await queue.enqueue(check(search), dueAt);
    // A later PR of the same job (a follow-up) schedules nothing new.
    await queue.enqueue(check(search), DAY);
    await timers.advanceTo(MAX_TIMER_MS + 1);
    expect(runs).toEqual([]);
    await timers.advanceTo(dueAt);
    expect(runs).toEqual([['job-1', 0, dueAt]]);
    await timers.advanceTo(dueAt + 60_000);
    expect(runs).toEqual([
      ['job-1', 0, dueAt],
      ['job-1', 1, dueAt + 60_000],
    ]);
    expect(queue.size()).toBe(0);
    expect(Math.max(...asked)).toBeLessThanOrEqual(MAX_TIMER_MS);
    await queue.close();
  });
});

function stubApi(calls: string[], fail = false): HealthApi {
  return {
    async getSearches(q) {
      calls.push(`searches ${q.dateFrom}..${q.dateTo} limit=${q.limit}`);
      if (fail) throw Object.assign(new Error('docs down'), { code: 'docs_unavailable' });
      const hits = q.dateFrom === '2026-03-11' ? 12 : 40;
      return {
        searches: [{ searchQuery: 'sso setup', hits, ctr: hits === 12 ? 0.5 : 0 }],
        totalSearches: 100,
      };
    },
    async getFeedbackByPage(q) {
      calls.push(`by-page ${q.dateFrom}..${q.dateTo} limit=${q.limit}`);
      const after = q.dateFrom === '2026-03-11';
      return {
        feedback: [{ path: '/guides/auth/', thumbsDown: after ? 1 : 9, thumbsUp: 3 }],
        hasMore: false,
      };
    },
    async getFeedback(q) {
      calls.push(`feedback ${q.dateFrom}`);
      return { feedback: [] };
    },
    async getAssistantConversations(q) {
      calls.push(`assistant ${q.dateFrom}`);
      return { conversations: [] };
    },
  };
}

function impactWith(
  api: HealthApi,
  budget = new InMemoryHourlyQuota(100),
  queue = new MemoryImpactQueue(logger, new ManualTimers(0)),
) {
  const posted: Array<[ImpactCheck, ImpactModel]> = [];
  const publisher: ImpactPublisher = {
    async postImpact(c, model) {
      posted.push([c, model]);
      return 'posted';
    },
  };
  const views = (total: number): RangePageViews => ({
    range,
    totals: { human: total, ai: 0, total },
    pages: [{ path: '/guides/auth', human: total, ai: 0, total }],
    partial: false,
    requests: 1,
    fetchedAt: 0,
  });
  const impact = new HealthImpact({
    queue,
    publisher,
    apiFor: () => api,
    pageViews: { views: async (r) => views(r.from === '2026-03-11' ? 300 : 200) },
    source: new AnalyticsSource({
      cache: createMemoryAnalyticsCache(logger),
      budget,
      logger,
      cacheTtlMs: 60_000,
    }),
    clock: { now: () => PR_SEEN },
    logger,
    defaultProjectId: 'p1',
    maxPages: 5,
    days: 14,
  });
  return { impact, posted };
}

describe('HealthImpact', () => {
  it('measures only the endpoint the evidence needs, before and after, and posts it', async () => {
    const calls: string[] = [];
    const { impact, posted } = impactWith(stubApi(calls));
    expect(await impact.run(check(search), 0)).toBeNull();
    expect(calls).toEqual([
      'searches 2026-02-24..2026-03-10 limit=100',
      'searches 2026-03-11..2026-03-25 limit=100',
    ]);
    expect(posted[0]![1].metrics.map((m) => [m.name, m.before, m.after])).toEqual([
      ['hits', 40, 12],
      ['ctr', 0, 0.5],
    ]);
    calls.length = 0;
    expect(await impact.run(check(page, 'job-2'), 0)).toBeNull();
    expect(calls).toEqual([
      'by-page 2026-02-24..2026-03-10 limit=100',
      'by-page 2026-03-11..2026-03-25 limit=100',
    ]);
    expect(posted[1]![1].metrics.map((m) => [m.name, m.before, m.after])).toEqual([
      ['thumbsDown', 9, 1],
      ['thumbsUp', 3, 3],
      ['pageViews', 200, 300],
    ]);
  });

  it('over budget or on a docs failure retries later (growing), never posting a guess', async () => {
    const budget = new InMemoryHourlyQuota(1);
    const calls: string[] = [];
    const { impact, posted } = impactWith(stubApi(calls), budget);
    const delay = await impact.run(check(search), 0);
    expect(delay).toBeGreaterThan(1000);
    expect(posted).toEqual([]);

    const failing = impactWith(stubApi([], true));
    const first = await failing.impact.run(check(search), 0);
    const third = await failing.impact.run(check(search), 2);
    expect(first).toBe(60_000);
    expect(third).toBe(240_000);
    expect(await failing.impact.run(check(search), 40)).toBe(6 * 60 * 60 * 1000);
    expect(failing.posted).toEqual([]);
  });

  it('remembers a PR as one check due after the windows, and ignores evidence it did not write', async () => {
    const timers = new ManualTimers(PR_SEEN);
    const queue = new MemoryImpactQueue(logger, timers);
    const { impact } = impactWith(stubApi([]), undefined, queue);
    const { prSeenAt: _, ...input } = check(search);
    await impact.remember(input);
    await impact.remember({ ...input, jobId: 'job-x', evidenceRef: '{"kind":"nope"}' });
    expect(queue.size()).toBe(1);
  });
});

describe('healthImpactMessage', () => {
  it('links the pull request, and only a plain https link', () => {
    const w = (hits: number) => ({
      dateFrom: '2026-02-24',
      dateTo: '2026-03-10',
      searches: [{ searchQuery: 'sso setup', hits, ctr: 0 }],
      totalSearches: hits,
      pages: [],
      feedback: [],
      conversations: [],
      partial: [],
      requests: 1,
    });
    const model = compareImpact(search, w(40), { ...w(12), dateFrom: '2026-03-11', dateTo: '2026-03-25' });
    const linked = JSON.stringify(healthImpactMessage(model, { prLink: 'https://github.com/a/b/pull/7' }));
    expect(linked).toContain('<https://github.com/a/b/pull/7|the pull request>');
    expect(linked).toContain('*Searches:* 40 → 12 (▼ 70%)');
    const unsafe = JSON.stringify(healthImpactMessage(model, { prLink: 'https://x|<!channel>' }));
    expect(unsafe).not.toContain('<!channel>');
    expect(checkMessage(healthImpactMessage(model))).toEqual({ ok: true });
  });
});

describe('SlackImpactPublisher', () => {
  it('owes one post per job in its thread, kept for 180 days (a retried check finds it)', async () => {
    const owed: NewDelivery[] = [];
    const publisher = new SlackImpactPublisher({
      owe: async (d) => void owed.push(d),
      deliver: async () => ({ status: 'pending' as const }),
      recorded: async () => false,
    });
    const model = compareImpact(search, emptyWindow, emptyWindow);
    expect(await publisher.postImpact(check(search), model)).toBe('posted');
    expect(owed).toEqual([
      expect.objectContaining({
        key: 'impact:job-1',
        target: { kind: 'post', channel: 'C1', threadTs: '1.000' },
        priority: 'reply',
        keepMs: 180 * 24 * 60 * 60 * 1000,
      }),
    ]);
  });
});

const emptyWindow = {
  dateFrom: '2026-02-24',
  dateTo: '2026-03-10',
  searches: [],
  totalSearches: 0,
  pages: [],
  feedback: [],
  conversations: [],
  partial: [],
  requests: 1,
};
