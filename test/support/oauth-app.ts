import { randomBytes } from 'node:crypto';
import type { Clock } from '../../src/common/clock.js';
import { loadConfig } from '../../src/common/config.js';
import { secretsOf } from '../../src/common/config-secrets.js';
import { createLogger, SecretSet } from '../../src/common/logger.js';
import { createDocsAgent } from '../../src/composition/app.js';
import type { DocsAgent } from '../../src/composition/docs-agent.js';
import type { OAuthOptions } from '../../src/composition/oauth/oauth-tenants.js';
import { FakeDocs } from './fake-docs.js';
import { FakeSlack } from './fake-slack.js';
import type { NextInstall } from './fake-slack-oauth.js';
import { signedSenders, type TestApp, testEnv } from './test-app.js';

export const STATE_SECRET = 'test-state-secret-0123456789abcdef0123';
export const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/** OAuth mode's environment over the fakes: no bot token, no docs project (both come per tenant). */
export function oauthEnv(slack: FakeSlack, docs: FakeDocs, overrides: Record<string, string> = {}) {
  const { SLACK_BOT_TOKEN: _t, DOCS_API_KEY: _k, DOCS_PROJECT_ID: _p, ...base } = testEnv(slack, docs);
  return {
    ...base,
    SLACK_CLIENT_ID: slack.oauth.clientId,
    SLACK_CLIENT_SECRET: slack.oauth.clientSecret,
    SLACK_STATE_SECRET: STATE_SECRET,
    DATA_ENCRYPTION_KEY: ENCRYPTION_KEY,
    ...overrides,
  };
}

export interface OAuthTestApp extends Pick<TestApp, 'command' | 'event' | 'interaction'> {
  url: string;
  slack: FakeSlack;
  docs: FakeDocs;
  agent: DocsAgent;
  logs: string[];
  /** Installs through the real flow (install page → Slack's authorize → Allow → callback → its 303); the page shown. */
  install(next: NextInstall): Promise<{ status: number; html: string }>;
  stop(): Promise<void>;
}

const hrefOf = (html: string, marker: RegExp) => {
  const match = marker.exec(html);
  if (!match?.[1]) throw new Error(`no link matching ${marker} in ${html.slice(0, 300)}`);
  return match[1].replaceAll('&amp;', '&');
};

/** The OAuth-mode bot in this process (HTTP on a random port) over a fake Slack and a fake docs platform. */
export async function startOAuthApp(
  options: OAuthOptions & {
    env?: Record<string, string>;
    slack?: FakeSlack;
    docs?: FakeDocs;
    clock?: Clock;
    /** TENANT_SCOPES_MAX below its floor of 10 (a test of the cap with two tenants). */
    maxResidentScopes?: number;
  } = {},
): Promise<OAuthTestApp> {
  const slack = options.slack ?? (await FakeSlack.start());
  const docs = options.docs ?? (await FakeDocs.start());
  const loaded = loadConfig(oauthEnv(slack, docs, options.env));
  if (!loaded.oauth) throw new Error('OAuth mode expected');
  const { maxResidentScopes = loaded.oauth.maxResidentScopes } = options;
  const config = { ...loaded, oauth: { ...loaded.oauth, maxResidentScopes } };
  const logs: string[] = [];
  const logger = createLogger({
    level: config.logLevel,
    secrets: new SecretSet(secretsOf(config)),
    destination: { write: (line: string) => logs.push(line) },
  });
  // The process's options as given (its timing hooks), with this app's logger.
  const { env: _env, slack: _slack, docs: _docs, maxResidentScopes: _max, ...hooks } = options;
  const agent = createDocsAgent(config, { ...hooks, logger });
  const port = await agent.start();
  const url = `http://127.0.0.1:${port}`;
  slack.oauth.redirectUrls = [`${url}/slack/oauth_redirect`];
  const events = `${url}/slack/events`;
  return {
    url,
    slack,
    docs,
    agent,
    logs,
    async install(next) {
      slack.oauth.nextInstall(next);
      const page = await fetch(`${url}/slack/install`);
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      const authorize = hrefOf(await page.text(), /class="slack-button" href="([^"]+)"/);
      const consent = await (await fetch(authorize)).text();
      const allow = hrefOf(consent, /id="allow" href="([^"]+)"/);
      const done = await fetch(allow, { headers: { cookie }, redirect: 'manual' });
      // Success is a 303 on to the success page (redirect-after-success); failures answer at once.
      const location = done.status === 303 ? done.headers.get('location') : null;
      const shown = location ? await fetch(new URL(location, url)) : done;
      return { status: shown.status, html: await shown.text() };
    },
    ...signedSenders(events, slack),
    async stop() {
      await agent.stop();
      if (!options.slack) await slack.close();
      if (!options.docs) await docs.close();
    },
  };
}
