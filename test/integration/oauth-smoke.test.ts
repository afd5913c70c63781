import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';

describe('OAuth mode smoke', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp({
      env: { SLACK_UPGRADED_TEAM_ID: 'T0ACME', DOCS_API_KEY: FAKE_API_KEY, DOCS_PROJECT_ID: FAKE_PROJECT_ID },
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('installs two workspaces and routes each command to its own', async () => {
    const first = await app.install({ teamId: 'T0ACME', teamName: 'Acme' });
    expect(first.status).toBe(200);
    expect(first.html).toContain('Acme');
    const second = await app.install({ teamId: 'T0BETA', teamName: 'Beta' });
    expect(second.status).toBe(200);
    const a = await app.command({ text: 'list', team_id: 'T0ACME' });
    expect(a.status).toBe(200);
    console.log(a.body);
    const b = await app.command({ text: 'help', team_id: 'T0BETA' });
    console.log(b.body);
    const c = await app.command({ text: 'help', team_id: 'T0NOPE' });
    console.log(c.status, c.body);
    await new Promise((r) => setTimeout(r, 500));
    console.log(app.slack.calls.map((c) => [c.method, c.authorization]));
    console.log(
      app.logs
        .filter((l) => /tenant|error|warn/i.test(l))
        .slice(0, 20)
        .join('\n'),
    );
  });
});
