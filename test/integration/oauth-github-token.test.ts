import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../support/fake-github.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { viewSubmissionPayload } from '../support/slack-interactions.js';
import { ALPHA, asTenant, BETA, registerTenants, type TestTenant } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';

/**
 * Issue 36, GitHub access per tenant in OAuth mode: a manager connects the tenant's own GitHub token in Slack
 * (`/docs-agent settings github` opens a private form; issue 44: never as command text), and only that tenant's jobs' pull requests are read with it; a
 * disconnect stops every read at once. Through the real OAuth-mode app with signed requests.
 */
const ALPHA_GITHUB = 'github_pat_alpha0123456789abcdefghijklmn';

describe('OAuth mode: a GitHub token connected in Slack', () => {
  let app: OAuthTestApp;
  let github: FakeGitHub;
  beforeAll(async () => {
    github = await FakeGitHub.start();
    github.token = ALPHA_GITHUB;
    github.addPull('acme', 'docs', 77);
    github.addPull('acme', 'docs', 78);
    github.addPull('acme', 'docs', 79);
    app = await startOAuthApp({
      env: { GITHUB_API_URL: github.url, PR_FOLLOW_INTERVAL_MS: '40', PR_FOLLOW_MAX_INTERVAL_MS: '100' },
    });
    registerTenants(app.slack, app.docs);
    for (const t of [ALPHA, BETA]) {
      expect((await installAndConnect(app, app.slack, t)).status).toBe(200);
    }
  });
  afterAll(async () => {
    await app?.stop();
    await github?.close();
  });

  const settings = (t: TestTenant, text: string) =>
    app.command({ text, user_id: t.user, team_id: t.teamId, channel_id: t.channel(1) });
  /** Runs a job in the tenant's channel and has the platform finish it with `pr`. */
  async function jobWithPr(t: TestTenant, n: number, pr: string): Promise<void> {
    const id = await startJob(app, app.docs, t, `document the ${t.marker} flags ${n}`, n);
    app.docs.complete(id, pr);
    await waitFor(() => prLinkReplies(app.slack, pr).length > 0, {
      timeoutMs: 10_000,
      what: 'the terminal reply',
    });
  }
  /** `/docs-agent settings github` opens the form; the token (and owners) are submitted in it. */
  async function connectGithub(t: TestTenant, token: string, owners = ''): Promise<string> {
    const opened = app.slack.calls.length;
    await settings(t, 'settings github');
    await app.slack.waitForCall(
      'views.open',
      (c) => app.slack.calls.indexOf(c) >= opened && JSON.stringify(c.args).includes('docs_github_connect'),
    );
    const submission = viewSubmissionPayload({
      userId: t.user,
      view: { callback_id: 'docs_github_connect' },
      values: {
        github_token: { github_token_input: { type: 'plain_text_input', value: token } },
        github_owners: { github_owners_input: { type: 'plain_text_input', value: owners } },
      },
    });
    return (await app.interaction(asTenant(submission, t))).body;
  }
  const readsOf = (n: number) => github.requestsTo(new RegExp(`/pulls/${n}$`));

  it("reads the connecting tenant's PR with its token, never another tenant's, and nothing after disconnect", async () => {
    // A token GitHub refuses is checked (one GET /rate_limit) and not saved.
    const wrong = 'github_pat_wrong0123456789abcdefghijklmn';
    // As command text a token is refused at once, privately, and goes nowhere (issue 44).
    const typed = await settings(ALPHA, `settings github ${wrong}`);
    expect(JSON.parse(typed.body)).toMatchObject({ response_type: 'ephemeral' });
    expect(typed.body).toContain('GitHub token');
    expect(typed.body).not.toContain(wrong);
    // In the form: checked with GitHub, refused on its field, not saved.
    expect(await connectGithub(ALPHA, wrong)).toContain('GitHub refused that token');
    expect(await connectGithub(ALPHA, ALPHA_GITHUB, 'acme')).toBe('');
    await waitFor(
      () => app.slack.callsOf('chat.postMessage').some((c) => JSON.stringify(c.args).includes('…klmn')),
      {
        what: 'the confirmation',
      },
    );
    // The token is never echoed back, only its last four characters.
    expect(JSON.stringify(app.slack.calls)).not.toContain(ALPHA_GITHUB);
    expect(github.requestsTo(/\/rate_limit$/).map((r) => r.status)).toEqual([401, 200]);

    await jobWithPr(ALPHA, 2, 'https://github.com/acme/docs/pull/77');
    await waitFor(() => readsOf(77).some((r) => r.status === 200), { timeoutMs: 10_000, what: 'a read' });
    expect(readsOf(77).every((r) => r.auth === `token ${ALPHA_GITHUB}`)).toBe(true);

    // BETA connected no token: its PR in the same repository is never read with ALPHA's (nor at all).
    await jobWithPr(BETA, 2, 'https://github.com/acme/docs/pull/78');
    await jobWithPr(ALPHA, 3, 'https://github.com/acme/docs/pull/79');
    await waitFor(() => readsOf(79).length > 0, { timeoutMs: 10_000, what: "ALPHA's second read" });
    expect(readsOf(78)).toEqual([]);

    const applied = () => app.logs.filter((l) => l.includes('settings changed; applied')).length;
    const appliedBefore = applied();
    await settings(ALPHA, 'settings github disconnect');
    await waitFor(
      () => app.slack.responses.some((r) => JSON.stringify(r.body).includes('GitHub token is disconnected')),
      { what: 'the disconnect' },
    );
    // From the moment the runtime holds the new settings, every request looks the token up and finds none.
    await waitFor(() => applied() > appliedBefore, { what: 'the disconnect applied' });
    // A read that began before (its PR, then its checks and status) may still finish with the token it held;
    // wait for a quiet 150 ms (at most 20 tries: reads still being started never fall quiet).
    for (let seen = -1, tries = 0; seen !== github.requests.length && tries < 20; tries += 1) {
      seen = github.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const after = github.requests.length;
    // Reads were due every 40–100 ms: several would have been sent by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(github.requests.slice(after).filter((r) => r.auth !== undefined)).toEqual([]);
    expect(github.requests.slice(after)).toEqual([]);
    expect(app.logs.join('\n')).not.toContain(ALPHA_GITHUB);
  });
});
