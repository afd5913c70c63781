import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { eventEnvelope } from '../support/slack-events.js';

describe('OAuth mode in one process', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp({
      env: { SLACK_UPGRADED_TEAM_ID: 'T0ACME', DOCS_API_KEY: FAKE_API_KEY, DOCS_PROJECT_ID: FAKE_PROJECT_ID },
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('installs two workspaces through Add to Slack and serves each with its own token', async () => {
    const first = await app.install({ teamId: 'T0ACME', teamName: 'Acme' });
    expect(first.status).toBe(200);
    expect(first.html).toContain('Acme');
    const second = await app.install({ teamId: 'T0BETA', teamName: 'Beta' });
    expect(second.status).toBe(200);
    expect(second.html).toContain('Beta');
    const before = app.slack.calls.length;
    const acme = await app.command({ text: 'help', team_id: 'T0ACME' });
    expect(acme.body).toContain('/docs-agent');
    // Not connected yet: one line that says what to do, nothing else.
    const beta = await app.command({ text: 'list', team_id: 'T0BETA' });
    expect(beta.body).toContain('/docs-agent connect');
    const stranger = await app.command({ text: 'help', team_id: 'T0NOPE' });
    expect(stranger).toMatchObject({ status: 200, body: '' });
    const tokens = new Set(app.slack.calls.slice(before).map((c) => c.authorization));
    for (const token of tokens) expect(token).toMatch(/xoxb-T0(ACME|BETA)-/);
    // /metrics: every tenant's counts summed under the usual names, and how many tenants are installed.
    const metrics = await (await fetch(`http://127.0.0.1:${app.agent.metricsPort()}/metrics`)).text();
    expect(metrics).toMatch(/^docs_agent_tenants 2$/m);
    // The installs' tokens never reach a log line.
    for (const tenant of ['T0ACME', 'T0BETA']) {
      const token = app.slack.oauth.liveToken(tenant);
      expect(token).toBeDefined();
      expect(app.logs.join('\n')).not.toContain(token);
    }
  });

  it('a workspace with no docs project: a mention is answered with what to do and nothing reaches the platform', async () => {
    await app.install({ teamId: 'T0GAMMA', teamName: 'Gamma' });
    app.slack.userTeams.set('U0GAMMA', 'T0GAMMA');
    const before = app.docs.requests.length;
    await app.event(
      eventEnvelope(
        {
          type: 'app_mention',
          user: 'U0GAMMA',
          text: '<@U0BOT> fix the quickstart',
          ts: '1700000000.000100',
          channel: 'C0DOCS',
          event_ts: '1700000000.000100',
        },
        undefined,
        'T0GAMMA',
      ),
    );
    await new Promise((r) => setTimeout(r, 1500));
    const card = app.slack.calls.filter(
      (c) => c.method === 'chat.update' && String(c.authorization).includes('T0GAMMA'),
    );
    expect(JSON.stringify(card.at(-1)?.args)).toContain('/docs-agent connect');
    expect(app.docs.requests.length).toBe(before);
  });
});
