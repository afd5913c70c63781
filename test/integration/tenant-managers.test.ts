import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { eventEnvelope } from '../support/slack-events.js';

/**
 * Who manages a tenant is decided once and changed only deliberately: a member's "Add to Slack" again keeps
 * the first installer; an admin's takes over and tells the previous installer; managers add and remove
 * managers in Slack. Everything through the real install flow and signed requests.
 */
const TEAM = 'T0MGRS';
const INSTALLER = 'U0FIRST';
const MEMBER = 'U0MEMBER';
const ADMIN = 'U0WSADMIN';
const HELPER = 'U0HELPER';
/** An admin of another organisation (met in a Slack Connect channel), and a deactivated admin of this one. */
const OUTSIDE_ADMIN = 'U0OUTADMIN';
const DELETED_ADMIN = 'U0GONEADMIN';

describe('OAuth mode: who manages a tenant', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp();
    for (const user of [INSTALLER, MEMBER, ADMIN, HELPER]) app.slack.userTeams.set(user, TEAM);
    for (const user of [INSTALLER, MEMBER, HELPER]) app.slack.members.roles.set(user, {});
    app.slack.members.roles.set(ADMIN, { is_admin: true });
    app.slack.userTeams.set(OUTSIDE_ADMIN, 'T0OTHERORG');
    app.slack.members.roles.set(OUTSIDE_ADMIN, { is_admin: true, is_owner: true });
    app.slack.userTeams.set(DELETED_ADMIN, TEAM);
    app.slack.members.roles.set(DELETED_ADMIN, { is_admin: true, deleted: true });
    app.slack.oauth.installerUserId = INSTALLER;
    expect((await app.install({ teamId: TEAM, teamName: 'Managers Co' })).status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const command = (userId: string, text: string) =>
    app.command({
      text,
      user_id: userId,
      team_id: TEAM,
      channel_id: 'C0MGRS',
      trigger_id: app.slack.surfaces.mintTriggerId(userId),
    });

  const appliedCount = () =>
    app.logs.filter((l) => l.includes(TEAM) && l.includes('tenant install or settings changed')).length;

  /** Whether `/docs-agent connect` opens the connect form for `userId` (else the answer refuses). */
  async function getsConnectForm(userId: string): Promise<boolean> {
    const opened = app.slack.callsOf('views.open').length;
    const responses = app.slack.responses.length;
    await command(userId, 'connect');
    await waitFor(
      () => app.slack.callsOf('views.open').length > opened || app.slack.responses.length > responses,
      { timeoutMs: 5_000, what: 'the connect form or a refusal' },
    );
    return app.slack.callsOf('views.open').length > opened;
  }

  async function answerTo(userId: string, text: string): Promise<string> {
    const responses = app.slack.responses.length;
    const ack = await command(userId, text);
    if (ack.body) return ack.body;
    await waitFor(() => app.slack.responses.length > responses, { timeoutMs: 5_000, what: 'an answer' });
    return String(app.slack.responses.at(-1)?.body.text ?? '');
  }

  it('a member who runs "Add to Slack" again does not become the installer: the installer keeps the form, the member is refused', async () => {
    expect(await getsConnectForm(INSTALLER)).toBe(true);
    expect(await getsConnectForm(MEMBER)).toBe(false);
    app.slack.oauth.installerUserId = MEMBER;
    const applied = appliedCount();
    expect((await app.install({ teamId: TEAM, teamName: 'Managers Co' })).status).toBe(200);
    // The re-install is applied to the running tenant before asking again.
    await waitFor(() => appliedCount() > applied, { timeoutMs: 5_000, what: 're-install applied' });
    expect(await getsConnectForm(MEMBER)).toBe(false);
    expect(await getsConnectForm(INSTALLER)).toBe(true);
    expect(app.logs.some((l) => l.includes('the first installer stays the installer'))).toBe(true);
  });

  it('a manager adds and removes a manager in Slack; a member cannot', async () => {
    expect(await answerTo(MEMBER, `managers add <@${HELPER}|helper>`)).toContain("can't change");
    expect(await getsConnectForm(HELPER)).toBe(false);
    expect(await answerTo(INSTALLER, `managers add <@${HELPER}|helper>`)).toContain('now manages');
    expect(await getsConnectForm(HELPER)).toBe(true);
    expect(await answerTo(INSTALLER, 'managers')).toContain(`<@${HELPER}>`);
    // Home shows managers who else manages, and the choice on people of other organisations.
    await app.event(
      eventEnvelope(
        { type: 'app_home_opened', user: INSTALLER, channel: 'D0FIRST', tab: 'home' },
        undefined,
        TEAM,
      ),
    );
    const home = await app.slack.waitForCall('views.publish', (c) => c.args.user_id === INSTALLER);
    expect(JSON.stringify(home.args)).toContain(`*Managers*`);
    expect(JSON.stringify(home.args)).toContain(`<@${HELPER}>`);
    expect(JSON.stringify(home.args)).toContain('may not use docs-agent here');
    expect(await answerTo(HELPER, `managers remove <@${HELPER}>`)).toContain('no longer manages');
    expect(await getsConnectForm(HELPER)).toBe(false);
    expect(await answerTo(INSTALLER, 'managers help')).toContain('/docs-agent managers add');
  });

  it('an admin of another organisation, or a deactivated admin, manages nothing and is not shown the settings', async () => {
    for (const who of [OUTSIDE_ADMIN, DELETED_ADMIN]) {
      expect(await getsConnectForm(who), who).toBe(false);
      const answer = await answerTo(who, 'settings');
      expect(answer, who).toBe(
        `I show docs-agent's settings only to its managers: <@${INSTALLER}> and this workspace's admins and owners; ask one of them.`,
      );
      expect(await answerTo(who, `managers add <@${who}>`), who).toContain("can't change");
    }
    // This workspace's admin is shown them (the refusals above are not blind).
    expect(await answerTo(ADMIN, 'settings')).toContain('docs-agent is managed here by');
    expect(await answerTo(INSTALLER, 'settings')).toContain('docs-agent is managed here by');
  });

  it("an admin's re-install takes over, says so in the log and to the previous installer", async () => {
    app.slack.oauth.installerUserId = ADMIN;
    expect((await app.install({ teamId: TEAM, teamName: 'Managers Co' })).status).toBe(200);
    const dm = await app.slack.waitForCall('chat.postMessage', (c) => c.args.channel === INSTALLER);
    expect(String(dm.args.text)).toContain(`<@${ADMIN}>`);
    expect(app.logs.some((l) => l.includes('takes over as its installer') && l.includes(TEAM))).toBe(true);
    // The previous installer, a member, no longer manages unless added back.
    await waitFor(async () => !(await getsConnectForm(INSTALLER)), { timeoutMs: 5_000 });
    expect(await getsConnectForm(ADMIN)).toBe(true);
    // Told once, whatever re-applies the installation.
    app.slack.oauth.installerUserId = MEMBER;
    await app.install({ teamId: TEAM, teamName: 'Managers Co' });
    await new Promise((r) => setTimeout(r, 500));
    expect(app.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === INSTALLER)).toHaveLength(1);
  });
});
