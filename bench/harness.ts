import type { DocsAgentOptions } from '../src/composition/app.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../test/support/fake-docs.js';
import { BOT_TOKEN, SIGNING_SECRET } from '../test/support/test-app.js';
import type { FakesUrls } from './fakes-process.js';
import { createDocsAgent, createLogger, loadConfig, secretsOf } from './product.js';

export interface BenchApp {
  /** POST /slack/events */
  url: string;
  /** Log lines written so far (discarded, only counted). */
  lines(): number;
  stop(): Promise<void>;
}

/**
 * The real app as `main.ts` builds it (`createDocsAgent` from the compiled `dist/`, production log level `info` unless `LOG_LEVEL` is
 * given; lines are counted and discarded), on the fakes of a `FakesProcess`.
 */
export async function startBenchApp(
  urls: FakesUrls,
  env: Record<string, string> = {},
  options: DocsAgentOptions = {},
): Promise<BenchApp> {
  const config = loadConfig({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: urls.slackApiUrl,
    DOCS_API_URL: urls.docsUrl,
    DOCS_API_KEY: FAKE_API_KEY,
    DOCS_PROJECT_ID: FAKE_PROJECT_ID,
    PORT: '0',
    LOG_LEVEL: 'info',
    ...env,
  });
  let lines = 0;
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretsOf(config),
    destination: { write: () => lines++ },
  });
  const agent = createDocsAgent(config, { logger, ...options });
  const port = await agent.start();
  return { url: `http://127.0.0.1:${port}/slack/events`, lines: () => lines, stop: () => agent.stop() };
}
