import { afterEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/insights/ranges/dates.js';
import { type Block, chartFillDone, chartOf, utcToday } from '../support/chart-answers.js';
import { makeViewRows } from '../support/fake-docs.js';
import { makeHealthData } from '../support/fake-docs-health.js';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 37: a report and its chart inside the organisation's analytics budget (100 requests an hour). The
 * real app over signed HTTP against the fake docs platform, which counts every analytics request.
 */
let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

interface Answer {
  text: string;
  blocks?: Block[];
  /** Analytics requests the fake docs platform had received when this answer reached Slack. */
  requestsBefore: number;
}

const analytics = (t: TestApp) => t.docs.requests.filter((r) => r.path.startsWith('/v1/analytics/'));

/** Counts the docs platform's analytics requests at the moment each response_url answer lands. */
function countAtAnswers(t: TestApp): Answer[] {
  const answers: Answer[] = [];
  const push = t.slack.responses.push.bind(t.slack.responses);
  t.slack.responses.push = (...items) => {
    for (const item of items)
      answers.push({ ...(item.body as Omit<Answer, 'requestsBefore'>), requestsBefore: analytics(t).length });
    return push(...items);
  };
  return answers;
}

const fillDone = (t: TestApp) => chartFillDone(t);

const answer = (answers: Answer[], i: number) => waitFor(() => answers[i], { what: `answer ${i}` });
const seriesNames = (a: Answer) => chartOf(a.blocks)?.chart.series.map((s) => s.name) ?? [];

/** A project with some of everything, more than one page of most (any range, any day). */
function seedHealth(t: TestApp, searches = 150): void {
  const data = makeHealthData({ searches, pages: 30, feedback: 120, conversations: 300 });
  // Reader votes and questions spread over the last two weeks, as the platform dates them.
  data.feedback.forEach((f, i) => {
    f.createdAt = `${addDays(utcToday(), -(1 + (i % 14)))}T10:00:00.000Z`;
  });
  data.conversations.forEach((c, i) => {
    c.timestamp = `${addDays(utcToday(), -(1 + (i % 14)))}T11:00:00.000Z`;
  });
  t.docs.health.defaults = data;
}

describe('a report and its chart inside the analytics budget', () => {
  it('a cold /docs-health costs at most 12 requests with its chart; the rest fills in the background', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true' } });
    seedHealth(app);
    const answers = countAtAnswers(app);
    await app.command({ command: '/docs-health', text: '7d' });
    const first = await answer(answers, 0);
    expect(first.requestsBefore).toBeLessThanOrEqual(12);
    // Drawn at once from what the report read: 👎 and unanswered per day (the week before in words).
    expect(seriesNames(first)).toEqual(['👎 on pages', 'Unanswered']);
    expect(JSON.stringify(first.blocks)).toContain(
      'Searches that found nothing join this chart in later reports',
    );

    // The background fill reads each day's searches once (14 days), and leaves half the hour's budget.
    const dayReads = () =>
      analytics(app!).filter(
        (r) => r.path.endsWith('/searches') && r.query.get('dateTo') === addDays(r.query.get('dateFrom')!, 1),
      ).length;
    await waitFor(() => dayReads() === 14, {
      what: 'searches per day filled in the background',
      timeoutMs: 20_000,
    });
    await fillDone(app);
    expect(analytics(app).length).toBeLessThanOrEqual(50);

    // A later report draws the whole chart from the cache: no request at all.
    const filled = analytics(app).length;
    await app.command({ command: '/docs-health', text: '7d' });
    const second = await answer(answers, 1);
    expect(second.requestsBefore).toBe(filled);
    expect(seriesNames(second)).toEqual(['Searches, no result', '👎 on pages', 'Unanswered']);
    expect(app.slack.blockKit.refusals).toEqual([]);
  });

  it('a second report of another range in the same hour is served, and a range with no data says it is empty', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true' } });
    // Five pages of search terms: a chart that read each day's in full would take the whole hour.
    seedHealth(app, 500);
    const answers = countAtAnswers(app);
    await app.command({ command: '/docs-health', text: '7d' });
    await answer(answers, 0);
    await app.command({ command: '/docs-health', text: '30d top 3' });
    const second = await answer(answers, 1);
    expect(second.text).not.toContain('analytics budget');
    expect(JSON.stringify(second.blocks)).toContain('Searches that found nothing');

    // A fortnight long ago with no data at all: every section says it is empty.
    const from = addDays(utcToday(), -200);
    const to = addDays(from, 13);
    app.docs.health.byRange.set(`${from}..${addDays(to, 1)}`, {
      searches: [],
      pages: [],
      feedback: [],
      conversations: [],
    });
    await app.command({ command: '/docs-health', text: `${from}..${to}` });
    const empty = await answer(answers, 2);
    expect(empty.text).not.toContain('analytics budget');
    const blocks = JSON.stringify(empty.blocks);
    expect(blocks).toContain('No page got a 👎 in this range.');
    expect(blocks).toContain('The assistant answered every question in this range.');
  });

  it('a cold /docs-views costs its paging reads and one one-row read per chart day; a bigger chart waits', async () => {
    // The fill keeps half the hourly budget for reports; the 30d chart's reads vary by a few with where the
    // 2-day points fall in the calendar (one read short of the default 100 on some days), so the budget here
    // leaves room: what is tested is that the fill completes in the background, not the default's margin.
    app = await startTestApp({ env: { REPORT_CHARTS: 'true', ANALYTICS_HOURLY_BUDGET: '120' } });
    for (let i = 1; i <= 70; i++) app.docs.viewsByDay.set(addDays(utcToday(), -i), makeViewRows(300, i));
    const answers = countAtAnswers(app);
    const views = () => analytics(app!).filter((r) => r.path.endsWith('/views'));
    await app.command({ command: '/docs-views', text: '7d' });
    const first = await answer(answers, 0);
    const atAnswer = views().slice(0, first.requestsBefore);
    const paging = atAnswer.filter((r) => r.query.get('limit') !== '1');
    const oneRow = atAnswer.filter((r) => r.query.get('limit') === '1');
    // The week's pages and one read of the week before's first page (its pages' "vs last period").
    expect(paging.length).toBeLessThanOrEqual(10);
    // 14 chart days (the week and the week before), and no one-row read of the week before's totals.
    expect(oneRow.length).toBeLessThanOrEqual(14);
    expect(seriesNames(first)).toEqual(['People', 'AI']);

    // 30 days beside the 30 before: 2-day points, about 31 one-row reads, over a fifth of the budget. Not drawn now, said so.
    await app.command({ command: '/docs-views', text: '30d' });
    const big = await answer(answers, 1);
    expect(big.requestsBefore - first.requestsBefore).toBeLessThanOrEqual(10 + 1);
    expect(chartOf(big.blocks)).toBeUndefined();
    expect(JSON.stringify(big.blocks)).toContain('read in the background for later reports');
    await waitFor(() => views().length >= first.requestsBefore + 28, {
      what: 'the 30d chart filled',
      timeoutMs: 20_000,
    });
    await fillDone(app);
    await app.command({ command: '/docs-views', text: '30d' });
    const later = await answer(answers, 2);
    expect(chartOf(later.blocks), 'a later report draws the filled chart').toBeDefined();
    expect(app.slack.blockKit.refusals).toEqual([]);
  });
});
