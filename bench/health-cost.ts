import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import type { FakesProcess } from './fakes-process.js';
import { startBenchApp } from './harness.js';
import { sized } from './smoke.js';
import { fmt, type Row } from './stats.js';

/**
 * Cost of a `/docs-health 7d` report for a realistic project (issue 14), through the real app: a signed
 * slash command in, the report out on response_url, calls counted per endpoint on the fake platform. Then
 * the same report again inside the cache TTL. The floor is what the spec's maximum page sizes allow
 * (analytics.openapi.json: searches 100, feedback by page 100 and not paged, feedback 100, assistant 1000);
 * the API's default page sizes (50, 10, 50, 100) are shown for comparison.
 */
export const HEALTH_PROJECT = sized(
  { searches: 2_000, pages: 300, feedback: 500, conversations: 3_000 },
  { searches: 200, pages: 30, feedback: 50, conversations: 300 },
);
const MAX = { searches: 100, feedback: 100, conversations: 1_000 };
const DEFAULTS = { searches: 50, feedback: 50, conversations: 100 };
const ROUTES = ['searches', 'feedback/by-page', 'feedback', 'assistant'].map(
  (endpoint) => `GET /v1/analytics/:project/${endpoint}`,
);

const pagesAt = (size: typeof MAX) =>
  Math.ceil(HEALTH_PROJECT.searches / size.searches) +
  1 +
  Math.ceil(HEALTH_PROJECT.feedback / size.feedback) +
  Math.ceil(HEALTH_PROJECT.conversations / size.conversations);

export async function runHealthCost(fakes: FakesProcess): Promise<{ rows: Row[]; lines: string[] }> {
  await fakes.send({ cmd: 'configure', health: HEALTH_PROJECT });
  const app = await startBenchApp(fakes.urls, { LOG_LEVEL: 'warn' });
  const calls = async () => {
    const { docs } = await fakes.send<{ docs: Record<string, number> }>({ cmd: 'counts' });
    return ROUTES.reduce((sum, route) => sum + (docs[route] ?? 0), 0);
  };
  const report = async (name: string) => {
    const before = await calls();
    const started = Date.now();
    const path = `/response/health-${name}`;
    const body = slashCommandBody({
      command: '/docs-health',
      text: '7d',
      response_url: `${fakes.urls.slackUrl}${path}`,
    });
    const ack = await postSigned(app.url, body, SIGNING_SECRET);
    if (ack.status !== 200) throw new Error(`health ${name}: ack ${ack.status}`);
    const answeredAt = await fakes.send<number | null>({ cmd: 'waitResponse', path, timeoutMs: 60_000 });
    if (answeredAt === null) throw new Error(`health ${name}: no report`);
    return { calls: (await calls()) - before, ms: answeredAt - started };
  };
  try {
    const cold = await report('cold');
    const repeat = await report('repeat');
    const floor = pagesAt(MAX);
    const naive = pagesAt(DEFAULTS);
    const verdict = (n: number, target: number) => (n <= target ? 'MET' : 'MISSED');
    const size = `${HEALTH_PROJECT.searches.toLocaleString('en-US')} searches, ${HEALTH_PROJECT.pages} flagged-or-rated pages, ${HEALTH_PROJECT.feedback} comments, ${HEALTH_PROJECT.conversations.toLocaleString('en-US')} conversations`;
    return {
      rows: [
        {
          report: '/docs-health 7d, cold',
          'upstream calls': cold.calls,
          floor,
          'wall time (s)': fmt(cold.ms / 1000, 2),
          verdict: verdict(cold.calls, floor),
        },
        {
          report: 'same health report repeated (inside cache TTL)',
          'upstream calls': repeat.calls,
          floor: 0,
          'wall time (s)': fmt(repeat.ms / 1000, 2),
          verdict: verdict(repeat.calls, 0),
        },
        {
          report: '(informational) the same data at the API default page sizes',
          'upstream calls': naive,
          floor: '—',
          'wall time (s)': '—',
          verdict: '—',
        },
      ],
      lines: [
        `health report (${size}), cold: ${cold.calls} calls: target ≤ floor ${floor} ${verdict(cold.calls, floor)}`,
        `the same health report repeated: ${repeat.calls} calls: target 0 ${verdict(repeat.calls, 0)}`,
      ],
    };
  } finally {
    await app.stop();
  }
}
