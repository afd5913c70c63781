import { createLogger } from '../src/common/logger.js';
import { DocsApiClient } from '../src/platform/docs-client.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../test/support/fake-docs.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { FakesProcess } from './fakes-process.js';
import { startBenchApp } from './harness.js';
import { runHealthCost } from './health-cost.js';
import { sized } from './smoke.js';
import { fmt, type Row } from './stats.js';
import { runWeeklyFanout } from './weekly-fanout.js';

/**
 * Analytics cost (issue 16, item 6), each against its floor: a `/docs-views 7d top 10` report over 10,000 paths with 50 ms upstream latency, through the real
 * app (signed slash command in, report out on response_url): upstream calls and wall time, then the same
 * report again inside the cache TTL, then the naive client: `DocsApiClient.getPageViews` paged with the API's
 * default page size (limit 50) until `hasMore` is false; and 50 channels' weekly posts firing at the same
 * minute (bench/weekly-fanout.ts); and a `/docs-health` report for a realistic project (bench/health-cost.ts).
 */
const PATHS = sized(10_000, 300);
const LATENCY_MS = 50;
const MAX_PAGE_SIZE = 250;
const VIEWS_ROUTE = 'GET /v1/analytics/:project/views';

export async function runAnalytics(): Promise<{
  rows: Row[];
  summary: Record<string, number>;
  health: string[];
}> {
  const fakes = await FakesProcess.start();
  await fakes.send({ cmd: 'configure', latencyMs: LATENCY_MS, viewRows: PATHS });
  // The app's analytics settings at their defaults (ANALYTICS_MAX_PAGES 40, cache TTL 15 min, budget 100/h).
  const app = await startBenchApp(fakes.urls, { LOG_LEVEL: 'warn' });
  const viewCalls = async () =>
    (await fakes.send<{ docs: Record<string, number> }>({ cmd: 'counts' })).docs[VIEWS_ROUTE] ?? 0;

  const report = async (name: string) => {
    const before = await viewCalls();
    const started = Date.now();
    const path = `/response/${name}`;
    const body = slashCommandBody({
      command: '/docs-views',
      text: '7d top 10',
      response_url: `${fakes.urls.slackUrl}${path}`,
    });
    const ack = await postSigned(app.url, body, SIGNING_SECRET);
    if (ack.status !== 200) throw new Error(`${name}: ack ${ack.status}`);
    // Every report, cached or not, follows the acknowledgement via response_url.
    const answeredAt = await fakes.send<number | null>({ cmd: 'waitResponse', path, timeoutMs: 60_000 });
    if (answeredAt === null) throw new Error(`${name}: no report`);
    return { calls: (await viewCalls()) - before, ms: answeredAt - started };
  };

  try {
    const first = await report('first');
    const repeat = await report('repeat');

    // Naive: the documented default page size, every page, one after the other.
    const client = new DocsApiClient({
      baseUrl: fakes.urls.docsUrl,
      apiKey: FAKE_API_KEY,
      projectId: FAKE_PROJECT_ID,
      timeoutMs: 10_000,
      logger: createLogger({ level: 'silent', secrets: [] }),
    });
    const naiveStarted = Date.now();
    let naiveCalls = 0;
    let rows = 0;
    for (let offset = 0; naiveCalls < 1_000; offset += 50) {
      naiveCalls += 1;
      const page = await client.getPageViews({
        dateFrom: '2025-01-01',
        dateTo: '2025-01-08',
        limit: 50,
        offset,
      });
      rows += page.views.length;
      if (!page.hasMore || page.views.length === 0) break;
    }
    const naiveMs = Date.now() - naiveStarted;
    await client.close();

    const weekly = await runWeeklyFanout();
    const health = await runHealthCost(fakes);
    // The floor: pages needed at the API's maximum page size (250), plus the one `limit=1` call for the
    // previous period's totals that the comparison line needs.
    const floor = Math.ceil(PATHS / MAX_PAGE_SIZE) + 1;
    const verdict = (calls: number, target: number) => (calls <= target ? 'MET' : 'MISSED');
    return {
      rows: [
        {
          report: '/docs-views 7d top 10, cold',
          'upstream calls': first.calls,
          floor,
          'wall time (s)': fmt(first.ms / 1000, 2),
          verdict: verdict(first.calls, floor),
        },
        {
          report: 'same report repeated (inside cache TTL)',
          'upstream calls': repeat.calls,
          floor: 0,
          'wall time (s)': fmt(repeat.ms / 1000, 2),
          verdict: verdict(repeat.calls, 0),
        },
        {
          report: `weekly posts, ${weekly.channels} channels at the same minute (${weekly.posts} posted)`,
          'upstream calls': weekly.calls,
          floor,
          'wall time (s)': fmt(weekly.ms / 1000, 2),
          verdict: verdict(weekly.calls, floor),
        },
        ...health.rows,
        {
          report: `(informational) naive getPageViews paging, limit 50, ${rows} rows`,
          'upstream calls': naiveCalls,
          floor: '—',
          'wall time (s)': fmt(naiveMs / 1000, 2),
          verdict: '—',
        },
      ],
      health: health.lines,
      summary: {
        firstCalls: first.calls,
        firstMs: first.ms,
        repeatCalls: repeat.calls,
        repeatMs: repeat.ms,
        weeklyCalls: weekly.calls,
        weeklyPosts: weekly.posts,
        floor,
        naiveCalls,
        naiveMs,
      },
    };
  } finally {
    await app.stop();
    await fakes.stop();
  }
}

export function analyticsVerdict(s: Record<string, number>, health: string[]): string[] {
  const line = (what: string, calls: number, floor: number) =>
    `${what}: ${calls} calls: target ≤ floor ${floor} ${calls <= floor ? 'MET' : 'MISSED'}`;
  return [
    line(`page-views report over ${PATHS.toLocaleString('en-US')} paths, cold`, s.firstCalls!, s.floor!),
    line('the same report repeated', s.repeatCalls!, 0),
    line(`50 weekly posts at the same minute (${s.weeklyPosts} posted)`, s.weeklyCalls!, s.floor!),
    ...health,
    `(informational) naive default page size: ${s.naiveCalls} calls, ${fmt(s.naiveCalls! / s.firstCalls!)}× the calls, ${fmt(
      s.naiveMs! / s.firstMs!,
    )}× the wall time`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary, health } = await runAnalytics();
  console.log(table(rows));
  for (const line of analyticsVerdict(summary, health)) console.log(line);
  process.exit(0);
}
