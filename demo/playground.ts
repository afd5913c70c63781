import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/common/config.js';
import { secretsOf } from '../src/common/config-secrets.js';
import { createLogger } from '../src/common/logger.js';
import { createDocsAgent, type DocsAgent } from '../src/composition/app.js';
import { BotRequests, type PageAction } from './bot-requests.js';
import { fragment, pageHtml } from './page.js';
import { DEMO_DOCS_KEY, DEMO_PROJECT_ID, StandInDocs } from './stand-in-docs.js';
import { StandInSlack } from './stand-in-slack.js';

/** Not secrets: the stand-ins accept nothing else, and nothing leaves this machine. */
const DEMO_SIGNING_SECRET = 'demo-signing-secret-not-a-secret-0000';
// A stand-in's token (fake, shaped as Slack's so the bot's config accepts it): the stand-in Slack takes any.
const DEMO_BOT_TOKEN = 'xoxb-fake-demo-playground-token';

export interface Playground {
  url: string;
  /** The bot's own HTTP port (on 127.0.0.1, like the page). */
  botPort: number;
  slack: StandInSlack;
  stop(): Promise<void>;
}

/**
 * The real bot (HTTP mode, memory state) against a stand-in Slack and docs platform, and the page that
 * shows the channel on `port` (0 for any free one), bound to 127.0.0.1 and answering only its own page
 * (Host and Origin checked: see fromOwnPage).
 */
export async function startPlayground(options: {
  port: number;
  jobWorkMs?: number;
  logLevel?: string;
}): Promise<Playground> {
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
    LOG_LEVEL: options.logLevel ?? 'warn',
  });
  const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const agent: DocsAgent = createDocsAgent(config, { logger });
  const botPort = await agent.start();
  const requests = new BotRequests(slack, `http://127.0.0.1:${botPort}/slack/events`, DEMO_SIGNING_SECRET);

  // Set once listening: the page's own loopback addresses (a port of 0 picks one).
  let own: { hosts: Set<string>; origins: Set<string> } = { hosts: new Set(), origins: new Set() };
  const server: Server = createServer((req, res) => {
    // Another site open in the same browser (or a name rebound to 127.0.0.1) must not drive the bot.
    if (!fromOwnPage(req.headers.host, req.headers.origin, own)) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      return res.end(
        'I only answer the playground page itself: open http://localhost:<port> as npm run demo printed it.',
      );
    }
    const headers = {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy':
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
    };
    if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, headers);
      return res.end(pageHtml(slack));
    }
    if (req.method === 'GET' && req.url === '/fragment') {
      res.writeHead(200, headers);
      return res.end(fragment(slack));
    }
    if (req.method === 'POST' && req.url === '/act') {
      let raw = '';
      req.on('data', (chunk: Buffer) => {
        raw += chunk;
        if (raw.length > 64_000) req.destroy();
      });
      req.on('end', () => {
        let action: PageAction;
        try {
          action = JSON.parse(raw) as PageAction;
        } catch {
          res.writeHead(400, { 'content-type': 'text/plain' });
          return res.end('The page sent something that is not JSON: reload the page and try again.');
        }
        requests.perform(action).then(
          () => {
            res.writeHead(204);
            res.end();
          },
          (error: unknown) => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(
              `The bot did not answer (${error instanceof Error ? error.message : 'unknown error'}). Check the terminal running npm run demo.`,
            );
          },
        );
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const hosts = [`localhost:${port}`, `127.0.0.1:${port}`];
  own = { hosts: new Set(hosts), origins: new Set(hosts.map((host) => `http://${host}`)) };
  const url = `http://localhost:${port}`;
  return {
    url,
    botPort,
    slack,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await agent.stop();
      await Promise.all([slack.close(), docs.close()]);
    },
  };
}

/**
 * Whether a request comes from the playground's own page: its Host is the playground's loopback host:port,
 * and its Origin, when the browser sends one (every POST from a page), is the playground's own.
 */
export function fromOwnPage(
  host: string | undefined,
  origin: string | undefined,
  own: { hosts: ReadonlySet<string>; origins: ReadonlySet<string> },
): boolean {
  if (host === undefined || !own.hosts.has(host)) return false;
  return origin === undefined || own.origins.has(origin);
}
