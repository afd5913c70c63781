import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { eventEnvelope } from '../support/slack-events.js';
import { ALPHA, BETA, GRID, registerTenants } from '../support/tenant-bots.js';
import { connectThroughModal } from '../support/tenant-connect.js';

/**
 * Slack Connect: a channel shared by two installed workspaces. Slack delivers its events for one install
 * (`authorizations[0]`), whoever acted; the person's own install serves them, with its own project and key
 * (the fake docs platform opens each project with its own key only). Whether people of other organisations
 * may act is each tenant's own setting, chosen by its managers in Slack.
 */
const SHARED = 'C0SHARED';
const OUTSIDER = 'U0OUTSIDER';

describe('OAuth mode: a channel shared by two installed workspaces', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp();
    registerTenants(app.slack, app.docs);
    app.slack.userTeams.set(OUTSIDER, 'T0ELSEWHERE');
    for (const t of [ALPHA, BETA, GRID]) {
      app.slack.oauth.installerUserId = t.user;
      expect((await app.install(t.install)).status).toBe(200);
      expect((await connectThroughModal(app, app.slack, t)).status).toBe(200);
    }
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** A mention in the shared channel by `user` of `userTeam`, delivered for Beta's install. */
  function mentionDeliveredForBeta(user: string, userTeam: string, text: string) {
    const event = {
      type: 'app_mention',
      user,
      user_team: userTeam,
      team: userTeam,
      text: `<@U0DOCSBOT> ${text}`,
      ts: `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
      channel: SHARED,
      event_ts: `${Date.now() / 1000}`,
    };
    return { ...eventEnvelope(event, undefined, BETA.teamId), is_ext_shared_channel: true };
  }

  const jobCreations = () => app.docs.requests.filter((r) => r.method === 'POST' && /\/job$/.test(r.path));

  it("Alpha's person in a channel shared with Beta: Alpha's project and key, never Beta's", async () => {
    const before = jobCreations().length;
    await app.event(mentionDeliveredForBeta(ALPHA.user, ALPHA.teamId, 'document the ALPHA webhooks'));
    await waitFor(() => jobCreations().length > before, { timeoutMs: 10_000, what: 'a job created' });
    const created = jobCreations().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]?.path).toContain(ALPHA.project);
    expect(created[0]?.authorization).toBe(`Bearer ${ALPHA.apiKey}`);
    // Answered with Alpha's token.
    const card = await app.slack.waitForCall('chat.postMessage', (c) => c.args.channel === SHARED);
    expect(card.authorization).toMatch(/xoxb-T0ALPHA-/);
  });

  it("an outsider is refused by default, and let in once Beta's managers allow it", async () => {
    const before = jobCreations().length;
    await app.event(mentionDeliveredForBeta(OUTSIDER, 'T0ELSEWHERE', 'document the BETA quotas'));
    await app.slack.waitForCall(
      'chat.postEphemeral',
      (c) => c.args.user === OUTSIDER && String(c.args.text).includes('another organisation'),
    );
    expect(jobCreations().length).toBe(before);
    // A member may not change it; Beta's installer may.
    app.slack.members.roles.set('U0BETAMEMBER', {});
    app.slack.userTeams.set('U0BETAMEMBER', BETA.teamId);
    const member = await app.command({
      text: 'settings external-users on',
      user_id: 'U0BETAMEMBER',
      team_id: BETA.teamId,
    });
    expect(member.status).toBe(200);
    await waitFor(() => app.slack.responses.some((r) => String(r.body.text).includes("can't change")), {
      timeoutMs: 5_000,
    });
    await app.command({ text: 'settings external-users on', user_id: BETA.user, team_id: BETA.teamId });
    await waitFor(() => app.slack.responses.some((r) => String(r.body.text).includes('*may* use')), {
      timeoutMs: 5_000,
    });
    await waitFor(
      async () => {
        await app.event(mentionDeliveredForBeta(OUTSIDER, 'T0ELSEWHERE', 'document the BETA quotas'));
        await new Promise((r) => setTimeout(r, 300));
        return jobCreations().length > before;
      },
      { timeoutMs: 10_000, what: "the outsider's job on Beta's project" },
    );
    const created = jobCreations().slice(before);
    expect(created.every((r) => r.path.includes(BETA.project))).toBe(true);
    expect(created.every((r) => r.authorization === `Bearer ${BETA.apiKey}`)).toBe(true);
  });

  it("an org-wide install compares a command's team with its org, not with itself: an outsider is refused", async () => {
    const before = jobCreations().length;
    const fromOrg: Record<string, string> = {
      enterprise_id: 'E0GRID',
      is_enterprise_install: 'true',
      channel_id: SHARED,
    };
    const answer = await app.command({
      ...fromOrg,
      text: 'document the GRID quotas',
      user_id: OUTSIDER,
      team_id: 'T0ELSEWHERE',
    });
    expect(answer.body).toContain('another organisation');
    // The org's own person, from one of its workspaces, is served.
    await app.command({
      ...fromOrg,
      text: 'document the GRID quotas',
      user_id: GRID.user,
      team_id: GRID.teamId,
    });
    await waitFor(() => jobCreations().length > before, { timeoutMs: 10_000, what: "the org's job" });
    expect(
      jobCreations()
        .slice(before)
        .map((r) => r.authorization),
    ).toEqual([`Bearer ${GRID.apiKey}`]);
  });
});
