import { loadConfig } from '../../src/common/config.js';
import { secretsOf } from '../../src/common/config-secrets.js';
import { createLogger } from '../../src/common/logger.js';
import { type AgentOptions, createDocsAgent, type DocsAgent } from '../../src/composition/app.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID, FakeDocs } from './fake-docs.js';
import { FakeSlack } from './fake-slack.js';
import { postSigned, type SlashCommandFields, slashCommandBody } from './slack-signing.js';

export const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';
export const BOT_TOKEN = 'xoxb-test-0000000000-0000000000000-faketoken';

export interface TestApp {
  url: string;
  /** Base URL of the metrics port (GET /metrics). */
  metricsUrl: string;
  slack: FakeSlack;
  docs: FakeDocs;
  agent: DocsAgent;
  logs: string[];
  /** Sends a signed `/docs-agent` (or other) slash command; resolves Slack's view of the HTTP answer. */
  command(
    fields: Partial<SlashCommandFields> & { text: string },
  ): Promise<{ status: number; body: string; ms: number }>;
  /** Sends a signed Events API payload. */
  event(
    payload: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: string; ms: number }>;
  /** Sends a signed interactivity payload (buttons). */
  interaction(payload: unknown): Promise<{ status: number; body: string; ms: number }>;
  stop(): Promise<void>;
}

/**
 * The environment every test app and bot process starts from: fakes wired in, fast polling, short
 * timeouts, debug logs (so the secret scans see everything). `overrides` win.
 */
export function testEnv(
  slack: FakeSlack,
  docs: FakeDocs,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    DOCS_API_URL: docs.url,
    DOCS_API_KEY: FAKE_API_KEY,
    DOCS_PROJECT_ID: FAKE_PROJECT_ID,
    PORT: '0',
    // Each app its own free metrics port: test files run in parallel.
    METRICS_PORT: '0',
    POLL_INTERVAL_MS: '25',
    POLL_MAX_INTERVAL_MS: '200',
    SLACK_API_TIMEOUT_MS: '2000',
    // Per-channel post pacing is covered by its own test; elsewhere it would only slow the suite down.
    SLACK_CHANNEL_POST_INTERVAL_MS: '0',
    // Likewise the per-method tier pacing (test/integration/slack-rate-tiers.test.ts covers it).
    SLACK_TIER_RATE_PERCENT: '0',
    // Charts cost a totals read per day: their tests turn them on (test/integration/report-charts.test.ts),
    // elsewhere they would change every count of analytics calls.
    REPORT_CHARTS: 'false',
    DOCS_API_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'debug',
    ...overrides,
  };
}

/**
 * The real app, in HTTP mode on a random port, wired to a fake Slack and a fake docs platform.
 * Pass `env` to override settings; `slack`/`docs` to reuse fakes across restarts.
 */
export async function startTestApp(
  options: {
    env?: Record<string, string>;
    slack?: FakeSlack;
    docs?: FakeDocs;
    /** Extra wiring for the app (e.g. a job store that fails on demand). */
    agentOptions?: Omit<AgentOptions, 'logger'>;
  } = {},
): Promise<TestApp> {
  const slack = options.slack ?? (await FakeSlack.start());
  const docs = options.docs ?? (await FakeDocs.start());
  const config = loadConfig(testEnv(slack, docs, options.env));
  const logs: string[] = [];
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretsOf(config),
    destination: { write: (line: string) => logs.push(line) },
  });
  const agent = createDocsAgent(config, { ...options.agentOptions, logger });
  const port = await agent.start();
  const url = `http://127.0.0.1:${port}`;
  const events = `${url}/slack/events`;
  return {
    url,
    metricsUrl: `http://127.0.0.1:${agent.metricsPort()}`,
    slack,
    docs,
    agent,
    logs,
    ...signedSenders(events, slack),
    async stop() {
      await agent.stop();
      if (!options.slack) await slack.close();
      if (!options.docs) await docs.close();
    },
  };
}

/** Signed commands, events and interactions to a bot's POST /slack/events, as Slack sends them. */
export function signedSenders(
  events: string,
  slack: FakeSlack,
): Pick<TestApp, 'command' | 'event' | 'interaction'> {
  return {
    command: (fields) =>
      postSigned(events, slashCommandBody({ response_url: slack.responseUrl(), ...fields }), SIGNING_SECRET),
    event: (payload, headers = {}) =>
      postSigned(events, JSON.stringify(payload), SIGNING_SECRET, {
        contentType: 'application/json',
        headers,
      }),
    interaction: (payload) =>
      postSigned(
        events,
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        SIGNING_SECRET,
      ),
  };
}
