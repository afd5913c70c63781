import type { BotProcess } from './bot-process.js';
import type { FakeDocs } from './fake-docs.js';
import type { FakeSlack } from './fake-slack.js';
import { waitFor } from './http.js';
import { viewSubmissionPayload } from './slack-interactions.js';
import { asTenant, type TestTenant } from './tenant-bots.js';

/** The connect form's ids (src/slack/messages/project-connect-modal.ts), as Slack echoes them back. */
const CONNECT_CALLBACK_ID = 'docs_project_connect';

/**
 * Connects the tenant's project from Slack, as its installer does: `/docs-agent connect` in a channel opens
 * the form (views.open with the tenant's token), the project id and admin key are submitted (the bot checks
 * the key with one read before saving). Resolves the submission's HTTP answer.
 */
export async function connectThroughModal(
  via: Pick<BotProcess, 'command' | 'interaction'>,
  slack: FakeSlack,
  t: TestTenant,
): Promise<{ status: number; body: string }> {
  const opened = slack.calls.length;
  const ack = await via.command({
    text: 'connect',
    channel_id: t.channel(1),
    user_id: t.user,
    team_id: t.teamId,
    ...(t.enterpriseId ? { enterprise_id: t.enterpriseId } : {}),
    is_enterprise_install: t.install.isEnterpriseInstall ? 'true' : 'false',
    response_url: slack.responseUrl(`${t.marker}-connect`),
  });
  if (ack.status !== 200) throw new Error(`connect answered ${ack.status}`);
  const open = await slack.waitForCall(
    'views.open',
    (c) => slack.calls.indexOf(c) >= opened && JSON.stringify(c.args).includes(CONNECT_CALLBACK_ID),
    10_000,
  );
  const view = (typeof open.args.view === 'string' ? JSON.parse(open.args.view) : open.args.view) as {
    private_metadata?: string;
  };
  const submission = viewSubmissionPayload({
    userId: t.user,
    view: { callback_id: CONNECT_CALLBACK_ID, private_metadata: view.private_metadata ?? '' },
    values: {
      project_id: { project_id_input: { type: 'plain_text_input', value: t.project } },
      admin_key: { admin_key_input: { type: 'plain_text_input', value: t.apiKey } },
    },
  });
  return via.interaction(asTenant(submission, t));
}

/**
 * A workspace's first minutes: its installer adds the app ("Add to Slack") and connects the docs project.
 * Resolves the connect form's HTTP answer.
 */
export async function installAndConnect(
  app: Pick<BotProcess, 'command' | 'interaction'> & {
    install(next: TestTenant['install']): Promise<unknown>;
  },
  slack: FakeSlack,
  t: TestTenant,
): Promise<{ status: number; body: string }> {
  slack.oauth.installerUserId = t.user;
  await app.install(t.install);
  return connectThroughModal(app, slack, t);
}

/**
 * The tenant's person starts a job with `/docs-agent <text>` in its channel `n`: resolves the id the docs
 * platform gave the new job.
 */
export async function startJob(
  app: Pick<BotProcess, 'command'>,
  docs: FakeDocs,
  t: TestTenant,
  text: string,
  n = 1,
): Promise<string> {
  const before = new Set(docs.jobs.keys());
  await app.command({ text, user_id: t.user, team_id: t.teamId, channel_id: t.channel(n) });
  // A tenant's first command builds its scope: on a loaded CI machine that outlives the default 5 s.
  await waitFor(() => [...docs.jobs.keys()].some((id) => !before.has(id)), {
    what: 'the job',
    timeoutMs: 15_000,
  });
  return [...docs.jobs.keys()].find((id) => !before.has(id))!;
}

/** The bot's posts that carry a job's PR link (its terminal reply). */
export function prLinkReplies(slack: FakeSlack, pr: string) {
  return slack.callsOf('chat.postMessage').filter((c) => JSON.stringify(c.args).includes(pr));
}
