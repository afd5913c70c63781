import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { messageEvent } from '../support/slack-events.js';
import { blockActionsPayload } from '../support/slack-interactions.js';

/**
 * Enterprise Grid: an org-wide install serves every workspace of the org, so a user of another workspace of
 * the same org is not "of another organisation"; someone outside the org still is (issue 27). A workspace
 * install inside an org is its own tenant: its org's other workspaces stay outside it.
 */
const ORG = 'E0GRID';
type Json = Record<string, unknown>;

/** An event as Slack delivers it to an install: `team_id` is the workspace it happened in. */
function envelope(event: Json, where: { teamId: string; enterpriseId: string; orgWide: boolean }): Json {
  return {
    token: 'deprecated-verification-token',
    team_id: where.teamId,
    enterprise_id: where.enterpriseId,
    api_app_id: 'A0DOCSAGENT',
    event,
    type: 'event_callback',
    event_id: `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: where.enterpriseId,
        team_id: where.orgWide ? null : where.teamId,
        user_id: 'U0DOCSBOT',
        is_bot: true,
        is_enterprise_install: where.orgWide,
      },
    ],
    ...(where.orgWide ? { is_enterprise_install: true } : {}),
  };
}

const inOrg = { teamId: 'T0ONE', enterpriseId: ORG, orgWide: true };
/** Home's New job button, clicked in the org's workspace T0ONE by a user of `team`. */
function newJobClick(app: OAuthTestApp, user: string, team: string): Json {
  const payload = blockActionsPayload({
    triggerId: app.slack.surfaces.mintTriggerId(user),
    action: { action_id: 'home_new_job', text: 'New job' },
    container: { type: 'view', view: {} },
  });
  return {
    ...payload,
    user: { id: user, username: user, name: user, team_id: team },
    team: { id: 'T0ONE', domain: 'one', enterprise_id: ORG },
    enterprise: { id: ORG, name: 'Grid Org' },
    is_enterprise_install: true,
  };
}
const homeOpened = (user: string) => ({ type: 'app_home_opened', user, channel: `D${user}`, tab: 'home' });

describe('Enterprise Grid and the external-user check', () => {
  let app: OAuthTestApp;
  const published = (user: string) =>
    app.slack.callsOf('views.publish').filter((call) => call.args.user_id === user);
  const refusedLine = (user: string) =>
    app.logs.find((line) => line.includes('another organisation') && line.includes(user));
  const toldRefused = (user: string) =>
    app.slack
      .callsOf('chat.postEphemeral')
      .filter((call) => call.args.user === user && String(call.args.text).includes('another organisation'));

  beforeAll(async () => {
    app = await startOAuthApp();
    const slack = app.slack;
    // A colleague from another workspace of the org, an outsider of another org, a user of no org at all.
    for (const [user, team, org] of [
      ['U0TWO', 'T0TWO', ORG],
      ['U0OUT', 'T0OUT', 'E0OTHER'],
      ['U0LONE', 'T0LONE', undefined],
      ['U0SIBLING', 'T0SIBLING', 'E0SOLO'],
    ] as const) {
      slack.userTeams.set(user, team);
      if (org) slack.userEnterprises.set(user, org);
    }
    expect(
      (await app.install({ enterpriseId: ORG, enterpriseName: 'Grid Org', isEnterpriseInstall: true }))
        .status,
    ).toBe(200);
    expect((await app.install({ teamId: 'T0SOLO', teamName: 'Solo', enterpriseId: 'E0SOLO' })).status).toBe(
      200,
    );
    await waitFor(() => app.logs.find((l) => l.includes(`tenant ${ORG} is ready`)), { what: 'org runtime' });
    await waitFor(() => app.logs.find((l) => l.includes('tenant T0SOLO is ready')), { what: 'solo runtime' });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('lets a user of another workspace of the org in (Home, found by users.info), with the org token', async () => {
    await app.event(envelope(homeOpened('U0TWO'), inOrg));
    const [call] = await waitFor(() => published('U0TWO')[0] && published('U0TWO'), {
      what: 'Home of U0TWO',
    });
    expect(call!.authorization).toBe(`Bearer ${app.slack.oauth.liveToken(ORG)}`);
    expect(refusedLine('U0TWO')).toBeUndefined();
  });

  it('lets a mention from another workspace of the org through (its team named on the event)', async () => {
    const mention = messageEvent({ type: 'app_mention', text: '<@U0DOCSBOT> help', user: 'U0TWO' });
    await app.event(envelope({ ...mention, user_team: 'T0TWO', team: 'T0TWO' }, inOrg));
    await waitFor(
      () =>
        app.slack.calls.find(
          (c) => c.method !== 'users.info' && JSON.stringify(c.args).includes(String(mention.ts)),
        ),
      {
        what: 'an answer to the mention',
      },
    );
    expect(toldRefused('U0TWO')).toEqual([]);
    expect(refusedLine('U0TWO')).toBeUndefined();
  });

  it('lets a colleague of another workspace use a button (New job opens its form); an outsider is told no', async () => {
    const colleague = newJobClick(app, 'U0TWO', 'T0TWO');
    expect((await app.interaction(colleague)).status).toBe(200);
    await waitFor(
      () => app.slack.callsOf('views.open').find((c) => c.args.trigger_id === colleague.trigger_id),
      {
        what: 'the New job form',
      },
    );
    const outsider = newJobClick(app, 'U0OUT', 'T0OUT');
    expect((await app.interaction(outsider)).status).toBe(200);
    await waitFor(
      () =>
        app.slack
          .callsOf('chat.postMessage')
          .find((c) => c.args.channel === 'U0OUT' && String(c.args.text).includes('another organisation')),
      { what: 'the outsider told' },
    );
    expect(app.slack.callsOf('views.open').filter((c) => c.args.trigger_id === outsider.trigger_id)).toEqual(
      [],
    );
  });

  it('still refuses users outside the org, though the event comes from inside it', async () => {
    await app.event(envelope(homeOpened('U0OUT'), inOrg));
    await app.event(envelope(homeOpened('U0LONE'), inOrg));
    const mention = messageEvent({ type: 'app_mention', text: '<@U0DOCSBOT> help', user: 'U0OUT' });
    await app.event(envelope({ ...mention, user_team: 'T0OUT', team: 'T0OUT' }, inOrg));
    await waitFor(() => toldRefused('U0OUT')[0], { what: 'the outsider told' });
    await waitFor(() => refusedLine('U0LONE'), { what: 'the user of no org refused' });
    expect(published('U0OUT')).toEqual([]);
    expect(published('U0LONE')).toEqual([]);
  });

  it('keeps a workspace install inside an org to its workspace: the org’s other workspaces are outside', async () => {
    await app.event(
      envelope(homeOpened('U0SIBLING'), { teamId: 'T0SOLO', enterpriseId: 'E0SOLO', orgWide: false }),
    );
    await waitFor(() => refusedLine('U0SIBLING'), { what: 'the sibling workspace user refused' });
    expect(published('U0SIBLING')).toEqual([]);
  });

  it('an org-wide install is managed by the org’s admins: a workspace admin of the org is refused, an org admin gets the form', async () => {
    const slack = app.slack;
    for (const user of ['U0WSADMIN', 'U0ORGADMIN']) {
      slack.userTeams.set(user, 'T0TWO');
      slack.userEnterprises.set(user, ORG);
    }
    slack.orgAdmins.add('U0ORGADMIN');
    const connect = (user: string) =>
      app.command({
        text: 'connect',
        user_id: user,
        team_id: 'T0TWO',
        enterprise_id: ORG,
        is_enterprise_install: 'true',
        trigger_id: `${user}.${randomBytes(4).toString('hex')}`,
      });
    // A workspace admin (of the org's T0TWO) but not of the org.
    slack.users.set('U0WSADMIN', { name: 'wsadmin', is_admin: true });
    await connect('U0WSADMIN');
    await waitFor(
      () =>
        slack.responses.find((r) => String(r.body.text ?? '').includes("can't change which docs project")),
      { what: 'the workspace admin refused' },
    );
    expect(
      slack.callsOf('views.open').filter((c) => String(c.args.trigger_id).startsWith('U0WSADMIN')),
    ).toEqual([]);
    await connect('U0ORGADMIN');
    await waitFor(
      () => slack.callsOf('views.open').find((c) => String(c.args.trigger_id).startsWith('U0ORGADMIN')),
      {
        what: 'the connect form for the org admin',
      },
    );
  });
});
