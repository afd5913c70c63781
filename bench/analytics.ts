import { DocsApiClient } from '../src/platform/docs-client.js';
import { createLogger } from '../src/shared/logger.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../test/support/fake-docs.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { FakesProcess } from './fakes-process.js';
import { startBenchApp } from './harness.js';
import { fmt, type Row } from './stats.js';

/**
 * Benchmark 4: a `/docs-views 7d top 10` report over 10,000 paths with 50 ms upstream latency, through the real
 * app (signed slash command in, report out on response_url): upstream calls and wall time, then the same
 * report again inside the cache TTL, then the naive client: `DocsApiClient.getPageViews` paged with the API's
 * default page size (limit 50) until `hasMore` is false.
 */
const PATHS = 10_000;
const LATENCY_MS = 50;
const VIEWS_ROUTE = 'GET /v1/analytics/:project/views';

export async function runAnalytics(): Promise<{ rows: Row[]; summary: Record<string, number> }> {
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
    // A cached report comes back in the acknowledgement itself; otherwise it follows via response_url.
    const inAck = ack.body !== '' && (JSON.parse(ack.body) as { blocks?: unknown[] }).blocks !== undefined;
    const answeredAt = inAck
      ? Date.now()
      : await fakes.send<number | null>({ cmd: 'waitResponse', path, timeoutMs: 60_000 });
    if (answeredAt === null) throw new Error(`${name}: no report`);
    return { calls: (await viewCalls()) - before, ms: answeredAt - started, inAck };
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

    return {
      rows: [
        {
          variant: 'docs-agent /docs-views (limit 250), first',
          'upstream calls': first.calls,
          'wall time (s)': fmt(first.ms / 1000, 2),
        },
        {
          variant: 'same report again (inside cache TTL)',
          'upstream calls': repeat.calls,
          'wall time (s)': fmt(repeat.ms / 1000, 2),
        },
        {
          variant: `naive getPageViews paging (limit 50, ${rows} rows)`,
          'upstream calls': naiveCalls,
          'wall time (s)': fmt(naiveMs / 1000, 2),
        },
      ],
      summary: {
        firstCalls: first.calls,
        firstMs: first.ms,
        repeatCalls: repeat.calls,
        repeatMs: repeat.ms,
        naiveCalls,
        naiveMs,
      },
    };
  } finally {
    await app.stop();
    await fakes.stop();
  }
}

export function analyticsVerdict(s: Record<string, number>): string[] {
  const pages = Math.ceil(PATHS / 250);
  return [
    `first report ${s.firstCalls} calls = ${pages} pages at limit 250 + 1 previous-period totals call (limit 1): target 40 (+1) ${
      s.firstCalls! <= pages + 1 ? 'MET' : 'MISSED'
    }`,
    `repeat inside the cache TTL: ${s.repeatCalls} calls: target 0 ${s.repeatCalls === 0 ? 'MET' : 'MISSED'}`,
    `naive default page size: ${s.naiveCalls} calls (expected ${PATHS / 50}); ${fmt(
      s.naiveCalls! / s.firstCalls!,
    )}× the calls, ${fmt(s.naiveMs! / s.firstMs!)}× the wall time`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary } = await runAnalytics();
  console.log(table(rows));
  for (const line of analyticsVerdict(summary)) console.log(line);
  process.exit(0);
}
