import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PageAction } from './bot-requests.js';
import { fragment, messageJson, pageHtml } from './page.js';
import { Scenarios } from './scenarios.js';
import type { StandInSlack } from './stand-in-slack.js';
import { startWorld, type World } from './world.js';

export interface Playground {
  url: string;
  /** The bot's own HTTP port (on 127.0.0.1, like the page). */
  botPort: number;
  /** The current world's stand-in Slack (a Reset builds a new one). */
  readonly slack: StandInSlack;
  /** Resolves once the channel is seeded (the finished and running jobs, an alert, a weekly post). */
  readonly seeded: Promise<void>;
  /** Runs one of the scenario bar's buttons, as the page does. */
  scenario(name: string): Promise<void>;
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
  /** false: open on an empty channel (tests of one thing). */
  seed?: boolean;
}): Promise<Playground> {
  let world: World = await startWorld(options);
  let scenarios = new Scenarios(world);
  let stopping = false;
  // A seed fails quietly once its world was thrown away (a Reset, or the playground stopping).
  const seed = (w: World, s: Scenarios) => {
    const run = s.seed();
    run.catch((error: unknown) => {
      if (stopping || world !== w) return;
      process.stderr.write(
        `I could not seed #docs (${error instanceof Error ? error.message : String(error)}): press Reset on the page to try again.\n`,
      );
    });
    return run;
  };
  let seeded = options.seed === false ? Promise.resolve() : seed(world, scenarios);
  // Reset: the bot and its stand-ins are thrown away and built again (fresh memory state), then seeded.
  let resetting: Promise<void> | undefined;
  const reset = async () => {
    const old = world;
    world = await startWorld(options);
    scenarios = new Scenarios(world);
    await old.stop();
    seeded = seed(world, scenarios);
  };
  const perform = (action: PageAction): Promise<void> => {
    if (action.kind === 'scenario' && action.name === 'reset') {
      resetting ??= reset().finally(() => {
        resetting = undefined;
      });
      return resetting;
    }
    if (action.kind === 'scenario') return scenarios.run(String(action.name ?? ''));
    return world.requests.perform(action);
  };

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
      return res.end(pageHtml(world.slack));
    }
    if (req.method === 'GET' && req.url === '/fragment') {
      res.writeHead(200, headers);
      return res.end(fragment(world.slack));
    }
    if (req.method === 'GET' && req.url?.startsWith('/message.json?ts=')) {
      const ts = new URL(req.url, 'http://playground').searchParams.get('ts') ?? '';
      const json = messageJson(world.slack, ts.slice(0, 40));
      res.writeHead(json ? 200 : 404, { ...headers, 'content-type': 'application/json; charset=utf-8' });
      return res.end(json ?? '{}');
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
          return res.end('I could not read what the page sent (not JSON): reload the page and try again.');
        }
        perform(action).then(
          () => {
            res.writeHead(204);
            res.end();
          },
          (error: unknown) => {
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(
              `I could not finish that: ${error instanceof Error ? error.message : 'unknown error'}. Check the terminal running npm run demo, or press Reset.`,
            );
          },
        );
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('I have no such page: open the playground at / as npm run demo printed it.');
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
    get botPort() {
      return world.botPort;
    },
    get slack() {
      return world.slack;
    },
    get seeded() {
      return seeded;
    },
    scenario: (name) => perform({ kind: 'scenario', name }),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      stopping = true;
      await resetting?.catch(() => undefined);
      await world.stop();
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
