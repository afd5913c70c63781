import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { connectThroughModal } from '../support/tenant-connect.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { CHANNEL, PAGE, paste, previewOf, SITE, seedPage, viewsReads } from '../support/unfurl-helpers.js';

/*
 * Issue 44, part 4: a preview respects where it is seen. A PR link of a job shows the job's instruction and
 * requester only in the job's own channel (elsewhere the PR's state), and the workspace's own
 * "external users" setting decides whether an outsider's paste shows numbers. Real app over signed HTTP.
 */

const PRIVATE = 'G0PRIVATE';
const PR = 'https://github.com/acme/docs/pull/41';
const SECRET = 'Document the unannounced Falcon pricing';

const apps: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

async function jobWithPullRequestIn(channel: string, env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp({ env: { DOCS_SITE_URL: SITE, ...env } });
  apps.push(t);
  t.slack.users.set('U0ALICE', { name: 'alice' });
  t.slack.users.set('U0BOB', { name: 'bob' });
  await t.command({ text: SECRET, user_id: 'U0ALICE', channel_id: channel });
  const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the job' });
  t.docs.complete(job.id, PR);
  await waitFor(() => t.slack.messages.some((m) => m.channel === channel && m.text.includes(PR)), {
    what: 'the terminal reply with the PR',
  });
  return t;
}

describe('PR previews outside the job’s channel', () => {
  it('a PR of a job started in a private channel, pasted in another channel or a DM, shows its state only', async () => {
    const t = await jobWithPullRequestIn(PRIVATE);
    const job = [...t.docs.jobs.values()][0]!;
    for (const channel of [CHANNEL, 'D0BOB']) {
      const ts = await paste(t, [PR], { channel, user: 'U0BOB' });
      const preview = await previewOf(t, ts, PR, channel);
      const text = JSON.stringify(preview);
      expect(text).toContain('acme/docs#41');
      expect(text).toContain('Opened');
      expect(text).not.toContain('Falcon');
      expect(text).not.toContain('U0ALICE');
      expect(text).not.toContain(job.id);
      expect(text).not.toContain(PRIVATE);
      const entity = t.slack.unfurls.entities.get(`${channel}:${ts}`)?.get(PR);
      expect(JSON.stringify(entity)).not.toMatch(/U0ALICE|Falcon/);
    }
    // In its own channel: the job, its instruction and who asked.
    const own = await paste(t, [PR], { channel: PRIVATE, user: 'U0BOB' });
    const text = JSON.stringify((await previewOf(t, own, PR, PRIVATE)).blocks);
    expect(text).toContain('Falcon');
    expect(text).toContain('<@U0ALICE>');
    expect(text).toContain(job.id);
  });
});

describe('docs-page previews outside the job’s channel', () => {
  it('name the last change’s pull request everywhere, but who asked for it only in the job’s own channel', async () => {
    const github = await FakeGitHub.start();
    apps.push({ stop: () => github.close() });
    github.addPull('acme', 'docs', 41, { files: ['docs/guides/rotate-keys.mdx'] });
    const t = await jobWithPullRequestIn(PRIVATE, {
      ...{ GITHUB_TOKEN: FAKE_GITHUB_TOKEN, GITHUB_API_URL: github.url },
      ...{ PR_FOLLOW_INTERVAL_MS: '40', PR_FOLLOW_MAX_INTERVAL_MS: '200' },
    });
    seedPage(t.docs);
    github.merge('acme', 'docs', 41, 'octo-cat', new Date().toISOString());
    // The merge is indexed once the follower reads it: the page's preview in the job's channel names it.
    const own = await waitFor(
      async () => {
        const ts = await paste(t, [PAGE], { channel: PRIVATE });
        const text = JSON.stringify((await previewOf(t, ts, PAGE, PRIVATE)).blocks);
        return text.includes('last fixed') ? text : undefined;
      },
      { timeoutMs: 15_000, what: 'the page preview naming the merged PR' },
    );
    expect(own).toContain('<@U0ALICE>');
    const ts = await paste(t, [PAGE], { user: 'U0BOB' });
    const elsewhere = JSON.stringify((await previewOf(t, ts, PAGE)).blocks);
    expect(elsewhere).toContain('last fixed');
    expect(elsewhere).toContain(PR);
    expect(elsewhere).not.toContain('U0ALICE');
  });
});

describe('previews follow the workspace’s own external-users setting (OAuth mode)', () => {
  it('with external users off for the workspace, an outsider’s paste shows no numbers, though the deployment allows them', async () => {
    const app: OAuthTestApp = await startOAuthApp({
      env: { DOCS_SITE_URL: SITE, ALLOW_EXTERNAL_USERS: 'true' },
    });
    apps.push(app);
    registerTenants(app.slack, app.docs);
    seedPage(app.docs);
    app.slack.oauth.installerUserId = ALPHA.user;
    expect((await app.install(ALPHA.install)).status).toBe(200);
    expect((await connectThroughModal(app, app.slack, ALPHA)).status).toBe(200);
    app.slack.userTeams.set('U0OUTSIDER', 'T0ELSEWHERE');
    const outsider = { user: 'U0OUTSIDER', user_team: 'T0ELSEWHERE' };

    // The deployment's default (on): the outsider sees the numbers.
    const before = await paste(app, [PAGE], outsider, ALPHA.teamId);
    expect(JSON.stringify((await previewOf(app, before, PAGE)).blocks)).toContain('150 views');
    const reads = viewsReads(app);

    // The workspace's installer turns external users off.
    await app.command({ text: 'settings external-users off', user_id: ALPHA.user, team_id: ALPHA.teamId });
    await waitFor(() => app.slack.responses.some((r) => String(r.body.text).includes('*may not* use')), {
      timeoutMs: 5_000,
      what: 'the setting saved',
    });
    const after = await paste(app, [PAGE], outsider, ALPHA.teamId);
    const text = JSON.stringify((await previewOf(app, after, PAGE)).blocks);
    expect(text).toContain('/guides/rotate-keys');
    expect(text).not.toMatch(/views|👎|health_fix|150/);
    expect(viewsReads(app)).toBe(reads);
  });
});
