import type { AgentOptions } from '../src/composition/app.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../test/support/fake-docs.js';
import { BOT_TOKEN, SIGNING_SECRET } from '../test/support/test-app.js';
import { type BenchApp, startAppWithEnv } from './bench-app.js';
import type { FakesUrls } from './fakes-process.js';

export type { BenchApp };

/**
 * The real app as `main.ts` builds it (`createDocsAgent` through bench/product.ts, production log level `info` unless `LOG_LEVEL` is
 * given; lines are counted and discarded), on the fakes of a `FakesProcess`.
 */
export async function startBenchApp(
  urls: FakesUrls,
  env: Record<string, string> = {},
  options: AgentOptions = {},
): Promise<BenchApp> {
  return startAppWithEnv(benchEnv(urls, env), options);
}

/** The environment of a bench app on the fakes at `urls`, with `env` on top. */
export function benchEnv(urls: FakesUrls, env: Record<string, string> = {}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: urls.slackApiUrl,
    DOCS_API_URL: urls.docsUrl,
    DOCS_API_KEY: FAKE_API_KEY,
    DOCS_PROJECT_ID: FAKE_PROJECT_ID,
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    // Sections 1–7 measure the reports' own costs, as before charts; section 8 measures the charts' reads.
    REPORT_CHARTS: 'false',
    ...env,
  };
}
