import { loadConfig } from '../src/common/config.js';
import { secretsOf } from '../src/common/config-secrets.js';
import { createLogger } from '../src/common/logger.js';
import { createDocsAgent, type DocsAgent } from '../src/composition/app.js';
import { BotRequests } from './bot-requests.js';
import { ShiftableTimers } from './shiftable-timers.js';
import { DEMO_DOCS_KEY, DEMO_PROJECT_ID, StandInDocs } from './stand-in-docs.js';
import { StandInSlack } from './stand-in-slack.js';

/** Not secrets: the stand-ins accept nothing else, and nothing leaves this machine. */
const DEMO_SIGNING_SECRET = 'demo-signing-secret-not-a-secret-0000';
// A stand-in's token (fake, shaped as Slack's so the bot's config accepts it): the stand-in Slack takes any.
const DEMO_BOT_TOKEN = 'xoxb-fake-demo-playground-token';

/** One run of the bot with its stand-ins: what Reset throws away and builds again. */
export interface World {
  slack: StandInSlack;
  docs: StandInDocs;
  agent: DocsAgent;
  requests: BotRequests;
  timers: ShiftableTimers;
  botPort: number;
  stop(): Promise<void>;
}

/** The real bot (HTTP mode, memory state, on 127.0.0.1) against a stand-in Slack and docs platform. */
export async function startWorld(options: { jobWorkMs?: number; logLevel?: string }): Promise<World> {
  const slack = new StandInSlack();
  const docs = new StandInDocs(options.jobWorkMs);
  await Promise.all([slack.start(), docs.start()]);
  const config = loadConfig({
    SLACK_BOT_TOKEN: DEMO_BOT_TOKEN,
    SLACK_SIGNING_SECRET: DEMO_SIGNING_SECRET,
    SLACK_API_URL: `${slack.url}/api/`,
    DOCS_API_URL: docs.url,
    DOCS_API_KEY: DEMO_DOCS_KEY,
    DOCS_PROJECT_ID: DEMO_PROJECT_ID,
    // Links to it unfurl with their numbers (the stand-in Slack's chat.unfurl shows them under the message).
    DOCS_SITE_URL: 'https://docs.acme.dev',
    PORT: '0',
    // The bot's own port too: nothing of the playground is reachable from another machine.
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
    POLL_INTERVAL_MS: '1000',
    POLL_MAX_INTERVAL_MS: '2000',
    SLACK_CHANNEL_POST_INTERVAL_MS: '0',
    REPORT_CHARTS: 'true',
    // Alerts are checked every 2 s (an hour in production) against made-up numbers: no budget to keep.
    HEALTH_ALERT_INTERVAL_MS: '2000',
    ANALYTICS_HOURLY_BUDGET: '100000',
    DOCS_AGENT_REACTION: 'memo',
    LOG_LEVEL: options.logLevel ?? 'warn',
  });
  const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const timers = new ShiftableTimers();
  const agent = createDocsAgent(config, { logger, schedulerTimers: timers });
  const botPort = await agent.start();
  const requests = new BotRequests(slack, `http://127.0.0.1:${botPort}/slack/events`, DEMO_SIGNING_SECRET);
  return {
    slack,
    docs,
    agent,
    requests,
    timers,
    botPort,
    async stop() {
      await agent.stop();
      await Promise.all([slack.close(), docs.close()]);
    },
  };
}
