import { randomBytes } from 'node:crypto';
import { createClient } from '@redis/client';
import type { NextInstall } from '../test/support/fake-slack-oauth.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import type { FakesProcess } from './fakes-process.js';
import { benchEnv } from './harness.js';
import {
  createDocsAgent,
  createLogger,
  DIRECTORY_PREFIX,
  loadConfig,
  RedisTenantDirectory,
  secretBoxFromSettings,
  secretsOf,
} from './product.js';

/** One deployment's data key for the whole benchmark run (every replica of a run shares it, as in production). */
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

export interface OAuthBenchApp {
  /** http://127.0.0.1:<port> */
  base: string;
  /** POST /slack/events */
  url: string;
  /** When (Date.now()) this replica built each tenant's runtime, from its log line. */
  started: Map<string, number>;
  /** "Add to Slack" through the real flow; when the success page arrived and how long the callback took. */
  install(next: NextInstall): Promise<{ doneAt: number; callbackMs: number }>;
  /** A signed `/docs-agent <text>` from `team`: its acknowledgement body. */
  command(team: string, text: string, from?: { user?: string; channel?: string }): Promise<string>;
  stop(): Promise<void>;
}

/** The real OAuth-mode app (`createDocsAgent`, as main.ts builds it) in this process, on the fakes. */
export async function startOAuthBenchApp(
  fakes: FakesProcess,
  env: Record<string, string> = {},
): Promise<OAuthBenchApp> {
  const client = await fakes.send<{ clientId: string; clientSecret: string }>({ cmd: 'oauthApp' });
  const { SLACK_BOT_TOKEN: _t, DOCS_API_KEY: _k, DOCS_PROJECT_ID: _p, ...base } = benchEnv(fakes.urls, env);
  const config = loadConfig({
    ...base,
    SLACK_CLIENT_ID: client.clientId,
    SLACK_CLIENT_SECRET: client.clientSecret,
    SLACK_STATE_SECRET: 'bench-state-secret-0123456789abcdef0123',
    DATA_ENCRYPTION_KEY: ENCRYPTION_KEY,
    // The benchmarks install hundreds a minute from one address on purpose.
    INSTALLS_PER_MINUTE: env.INSTALLS_PER_MINUTE ?? '100000',
  });
  if (!config.oauth) throw new Error('OAuth mode expected');
  const started = new Map<string, number>();
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretsOf(config),
    destination: {
      write: (line: string) => {
        if (!line.includes('tenant runtime started')) return;
        const tenant = (JSON.parse(line) as { tenant?: string }).tenant;
        if (tenant && !started.has(tenant)) started.set(tenant, Date.now());
      },
    },
  });
  const agent = createDocsAgent(config, { logger });
  const port = await agent.start();
  const origin = `http://127.0.0.1:${port}`;
  const events = `${origin}/slack/events`;
  return {
    base: origin,
    url: events,
    started,
    install: (next) => installThrough(fakes, origin, next),
    command: (team, text, from) => signedCommand(fakes, events, team, text, from),
    stop: () => agent.stop(),
  };
}

/** A signed `/docs-agent <text>` from `team` to the events URL of a replica: its acknowledgement body. */
export async function signedCommand(
  fakes: FakesProcess,
  events: string,
  team: string,
  text: string,
  { user = 'U0ALICE', channel = 'C0DOCS' }: { user?: string; channel?: string } = {},
): Promise<string> {
  const body = slashCommandBody({
    team_id: team,
    user_id: user,
    channel_id: channel,
    text,
    response_url: `${fakes.urls.slackUrl}/response/t-${randomBytes(6).toString('hex')}`,
  });
  return (await postSigned(events, body, SIGNING_SECRET)).body;
}

/**
 * "Add to Slack" through the real flow on the replica at `origin` (install page → the fake Slack's consent
 * page → Allow → the replica's callback): when the callback's answer arrived and how long it took.
 */
export async function installThrough(
  fakes: FakesProcess,
  origin: string,
  next: NextInstall,
): Promise<{ doneAt: number; callbackMs: number }> {
  return allowInstall(await consentFor(fakes, origin, next));
}

/** A consent page shown and not yet allowed: Allow's link and the install page's state cookie. */
export interface Consent {
  allow: string;
  cookie: string;
}

/**
 * The install page and Slack's consent page for `next` (the fake Slack binds the workspace to the consent
 * page's code): installs at once must take this step one at a time, then may `allowInstall` together.
 */
export async function consentFor(fakes: FakesProcess, origin: string, next: NextInstall): Promise<Consent> {
  await fakes.send({ cmd: 'nextInstall', install: next, redirectUrl: `${origin}/slack/oauth_redirect` });
  const page = await fetch(`${origin}/slack/install`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = hrefOf(await page.text(), /class="slack-button" href="([^"]+)"/);
  const allow = hrefOf(await (await fetch(authorize)).text(), /id="allow" href="([^"]+)"/);
  return { allow, cookie };
}

/** Allow: the replica's OAuth callback (exchange, directory, welcome DM owed): when its answer arrived. */
export async function allowInstall({
  allow,
  cookie,
}: Consent): Promise<{ doneAt: number; callbackMs: number }> {
  const sent = performance.now();
  const done = await fetch(allow, { headers: { cookie }, redirect: 'manual' });
  const html = await done.text();
  const doneAt = Date.now();
  // Success is a 303 to the success page (a reload of it is harmless); anything else failed.
  if (done.status !== 303) throw new Error(`install failed (${done.status}): ${html.slice(0, 300)}`);
  return { doneAt, callbackMs: performance.now() - sent };
}

const hrefOf = (html: string, marker: RegExp) => {
  const match = marker.exec(html);
  if (!match?.[1]) throw new Error(`no link matching ${marker} in ${html.slice(0, 300)}`);
  return match[1].replaceAll('&amp;', '&');
};

export const workspace = (i: number) => ({
  teamId: `T0B${String(i).padStart(4, '0')}`,
  teamName: `Bench ${i}`,
});

/**
 * Connects a docs project to a tenant the way `/docs-agent connect` saves it (the Redis directory, version
 * checked); the replicas pick it up at their next sync.
 */
export async function connectProject(
  redisUrl: string,
  tenant: string,
  project: { projectId: string; apiKey: string },
  encryptionKey = ENCRYPTION_KEY,
): Promise<void> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    const directory = new RedisTenantDirectory(
      client,
      DIRECTORY_PREFIX,
      secretBoxFromSettings(encryptionKey, undefined),
    );
    const { version } = await directory.settings(tenant);
    const connection = {
      ...project,
      channelId: undefined,
      connectedBy: 'U0INSTALLER',
      connectedAt: Date.now(),
    };
    if (!(await directory.saveSettings(tenant, { projects: [connection] }, version)))
      throw new Error(`could not connect a project to ${tenant}`);
  } finally {
    await client.close();
  }
}

/** Redis' connected clients (CLIENT LIST), not counting this look's own connection. */
export async function redisClients(redisUrl: string): Promise<number> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    const list = await client.sendCommand<string>(['CLIENT', 'LIST']);
    return String(list).trim().split('\n').filter(Boolean).length - 1;
  } finally {
    await client.close();
  }
}

/** Commands Redis has processed since it started (INFO stats), this look's own included. */
export async function redisCommandsProcessed(redisUrl: string): Promise<number> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    const info = await client.sendCommand<string>(['INFO', 'stats']);
    return Number(/total_commands_processed:(\d+)/.exec(String(info))?.[1] ?? Number.NaN);
  } finally {
    await client.close();
  }
}
