import { addDays } from '../src/insights/ranges/dates.js';
import { makeViewRows } from '../test/support/fake-docs.js';
import { makeHealthData } from '../test/support/fake-docs-health.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import { table } from './stats.js';

/**
 * Analytics requests per report with its chart (issues 30 and 37), through the real app: signed slash
 * commands in, the answer out on response_url, against the HTTP fake docs platform, which counts every
 * analytics request. The clock is simulated (a day at a time) and the budget is the default 100 an hour.
 * "With the report" is what the fake had received when the answer reached Slack; "background" is what the
 * chart fill read after it. The floor is the fewest requests the API allows for what the report shows.
 */
const DAY_MS = 86_400_000;
const START = Date.parse('2026-11-02T09:00:00Z'); // a Monday
/** What a fill logs when it ends: its queue worked off, or the rest of the budget kept for reports. */
const FILL_LOG = /chart points read in the background|chart fill stops/;

export interface ChartCostRow {
  chart: string;
  requests: number;
  background: number;
  floor: number | string;
  target: string;
  ok: boolean;
}

export async function runChartCost(): Promise<{ rows: ChartCostRow[] }> {
  let nowMs = START;
  const app = await startTestApp({
    env: { REPORT_CHARTS: 'true', LOG_LEVEL: 'info', ANALYTICS_HOURLY_BUDGET: '100' },
    agentOptions: { clock: { now: () => nowMs } },
  });
  try {
    seed(app, nowMs);
    const rows: ChartCostRow[] = [];
    const measure = measurer(app);
    const row = async (
      chart: string,
      command: string,
      text: string,
      floor: number | string,
      target: number,
    ) => {
      const { requests, background } = await measure(command, text);
      rows.push({ chart, requests, background, floor, target: `≤ ${target}`, ok: requests <= target });
    };
    // Report reads here: searches 2 pages, feedback by page 1, feedback 2, assistant 1 (6); views 2 pages.
    // The floor beside a health chart: the week before's feedback (2 pages) and conversations (1).
    await row('`/docs-health 7d`, first time', '/docs-health', '7d', '6 + 3', 12);
    await row('… again, same hour', '/docs-health', '7d', 0, 0);
    await row('`/docs-health 30d top 3`, same hour', '/docs-health', '30d top 3', '6 + 3', 12);
    nowMs += DAY_MS;
    await row('`/docs-health 7d`, the next day', '/docs-health', '7d', '6 + 3 + 1–2', 14);
    nowMs += DAY_MS;
    await row('`/docs-views 7d`, first time', '/docs-views', '7d', '2 + 14', 2 + 14);
    await row('… again, same hour', '/docs-views', '7d', 0, 0);
    await row(
      '`/docs-views 30d`, first time (chart: 32 one-row reads, over a fifth)',
      '/docs-views',
      '30d',
      3,
      3,
    );
    nowMs += 61 * 60_000;
    await row(
      '… an hour later (the chart from the cache and the fill)',
      '/docs-views',
      '30d',
      '2 + what the fill left',
      2 + 20,
    );
    nowMs += DAY_MS;
    await row('`/docs-views 7d`, the next day', '/docs-views', '7d', '2 + 1–2', 2 + 2);
    return { rows };
  } finally {
    await app.stop();
  }
}

function seed(app: TestApp, nowMs: number): void {
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const data = makeHealthData({ searches: 150, pages: 30, feedback: 120, conversations: 300 });
  data.feedback.forEach((f, i) => {
    f.createdAt = `${addDays(today, -(1 + (i % 60)))}T10:00:00.000Z`;
  });
  data.conversations.forEach((c, i) => {
    c.timestamp = `${addDays(today, -(1 + (i % 60)))}T11:00:00.000Z`;
  });
  app.docs.health.defaults = data;
  for (let i = -3; i <= 80; i++) app.docs.viewsByDay.set(addDays(today, -i), makeViewRows(300, i + 10));
}

/** Runs a command; the analytics requests before its answer, and those its background fill made after. */
function measurer(app: TestApp) {
  const analytics = () => app.docs.requests.filter((r) => r.path.startsWith('/v1/analytics/')).length;
  let answered = app.slack.responses.length;
  const push = app.slack.responses.push.bind(app.slack.responses);
  let atAnswer = 0;
  app.slack.responses.push = (...items) => {
    atAnswer = analytics();
    return push(...items);
  };
  return async (command: string, text: string) => {
    const before = analytics();
    const fills = app.logs.filter((l) => FILL_LOG.test(l)).length;
    await app.command({ command, text });
    await until(() => app.slack.responses.length > answered, `${command} ${text}`);
    answered = app.slack.responses.length;
    const requests = atAnswer - before;
    // A fill logs once it has worked off its queue; without one, nothing more comes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (analytics() > atAnswer)
      await until(() => app.logs.filter((l) => FILL_LOG.test(l)).length > fills, 'the fill');
    return { requests, background: analytics() - atAnswer };
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`chart-cost: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function chartCostVerdict(rows: ChartCostRow[]): string[] {
  const missed = rows.filter((r) => !r.ok);
  return [
    missed.length === 0
      ? `PASS: every report at or under its target (${rows.length} figures)`
      : `FAIL: ${missed.map((r) => r.chart).join('; ')}`,
  ];
}

export const chartCostTable = (rows: ChartCostRow[]) =>
  table(
    rows.map((r) => ({
      report: r.chart,
      'with the report': r.requests,
      background: r.background,
      floor: r.floor,
      target: r.target,
    })),
  );

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows } = await runChartCost();
  console.log('## Analytics requests per report with its chart, cold and warm');
  console.log(chartCostTable(rows));
  for (const line of chartCostVerdict(rows)) console.log(line);
}
