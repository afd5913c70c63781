import { afterEach, describe, expect, it } from 'vitest';
import { assistantThreadStarted } from '../support/assistant-events.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent, nextMessageTs } from '../support/slack-events.js';
import {
  blockActionsPayload,
  messageActionPayload,
  reactionAddedEnvelope,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

type Json = Record<string, unknown>;
const OUTSIDER = 'U0OUTSIDE';
const OTHER_TEAM = 'T0OTHERORG';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An interaction payload as Slack sends it for a Slack Connect user: their own team on `user`. */
function fromOutsider(payload: Json): Json {
  return { ...payload, user: { ...(payload.user as Json), id: OUTSIDER, team_id: OTHER_TEAM } };
}

const told = (t: TestApp) =>
  [
    ...t.slack.callsOf('chat.postEphemeral').map((c) => c.args),
    ...t.slack.callsOf('chat.postMessage').map((c) => c.args),
    ...t.slack.responses.map((r) => r.body),
  ].filter((m) => String(m.text ?? '').includes('another organisation'));

describe('users of other organisations (Slack Connect)', () => {
  it('are refused, with an answer, on every surface; nothing starts and no form opens', async () => {
    const t = await startTestApp();
    app = t;
    // A job of an insider, so follow-ups have a thread to target.
    await t.command({ text: 'Document the export API', user_id: 'U0ALICE' });
    const card = await waitFor(() => t.slack.messages.find((m) => m.bot_id), { what: 'card' });
    const jobs = () => [...t.docs.jobs.values()];
    await waitFor(() => jobs()[0], { what: 'insider job' });

    const command = await t.command({ text: 'Delete every page', user_id: OUTSIDER, team_id: OTHER_TEAM });
    expect(JSON.parse(command.body).text).toContain('another organisation');
    const status = await t.command({
      text: `status ${jobs()[0]!.id}`,
      user_id: OUTSIDER,
      team_id: OTHER_TEAM,
    });
    expect(JSON.parse(status.body).text).toContain('another organisation');

    const external = { user: OUTSIDER, user_team: OTHER_TEAM, team: OTHER_TEAM };
    await t.event(
      eventEnvelope(messageEvent({ type: 'app_mention', text: '<@U0DOCSBOT> rewrite it', ...external })),
    );
    await t.event(
      eventEnvelope(messageEvent({ channel: 'D0OUT', channel_type: 'im', text: 'rewrite', ...external })),
    );
    await t.event(
      eventEnvelope(messageEvent({ thread_ts: card.ts, text: 'and delete the FAQ', ...external })),
    );
    const ts = nextMessageTs();
    t.slack.messages.push({ channel: 'C0DOCS', ts, text: 'Make the docs say X', user: 'U0BOB' });
    const reaction = reactionAddedEnvelope({ ts, userId: OUTSIDER });
    (reaction.event as Json).user_team = OTHER_TEAM;
    await t.event(reaction);

    const shortcut = await t.interaction(
      fromOutsider(
        messageActionPayload({
          triggerId: t.slack.surfaces.mintTriggerId(OUTSIDER),
          responseUrl: t.slack.responseUrl(),
          message: { text: 'Make the docs say X' },
        }),
      ),
    );
    expect(shortcut.status).toBe(200);
    await t.interaction(
      fromOutsider(
        blockActionsPayload({
          triggerId: t.slack.surfaces.mintTriggerId(OUTSIDER),
          action: { action_id: 'home_new_job', text: 'New job' },
          container: { type: 'view', view: {} },
        }),
      ),
    );
    const submitted = await t.interaction(
      fromOutsider(
        viewSubmissionPayload({
          view: { callback_id: 'docs_agent_job_modal', private_metadata: '{"o":"home"}' },
          values: {
            instruction: { instruction_input: { type: 'plain_text_input', value: 'Rewrite everything' } },
            channel: { channel_input: { type: 'conversations_select', selected_conversation: 'C0DOCS' } },
          },
        }),
      ),
    );
    const modal = JSON.parse(submitted.body);
    expect(modal.response_action).toBe('update');
    expect(JSON.stringify(modal.view)).toContain('another organisation');

    // Mention, DM, reaction, shortcut and Home button answered; the plain thread reply is conversation.
    await waitFor(() => (told(t).length >= 5 ? true : undefined), { what: 'every surface answered' });
    await sleep(300);
    expect(told(t)).toHaveLength(5);
    expect(jobs()).toHaveLength(1);
    expect(jobs()[0]!.prompts).toEqual(['Document the export API']);
    expect(t.slack.surfaces.modals.size).toBe(0);
    expect(t.slack.callsOf('conversations.history')).toHaveLength(0);
  });

  it('are refused on events that name no team (reaction, Home, assistant thread), found by users.info', async () => {
    const t = await startTestApp();
    app = t;
    t.slack.userTeams.set(OUTSIDER, OTHER_TEAM);
    t.slack.unknownUsers.add('U0GHOST');
    const reactionBy = async (userId: string) => {
      const ts = nextMessageTs();
      t.slack.messages.push({ channel: 'C0DOCS', ts, text: `Make the docs say ${userId}`, user: 'U0BOB' });
      // As Slack sends reaction_added: a user, no team anywhere in the event.
      await t.event(reactionAddedEnvelope({ ts, userId }));
    };
    await reactionBy(OUTSIDER);
    await reactionBy('U0GHOST');
    await t.event(eventEnvelope({ type: 'app_home_opened', user: OUTSIDER, channel: 'D0OUT', tab: 'home' }));
    await t.event(eventEnvelope(assistantThreadStarted({ threadTs: nextMessageTs(), user: OUTSIDER })));
    // An insider's reaction on the same kind of event still starts a job.
    await reactionBy('U0ALICE');
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the insider’s job' });
    await sleep(300);
    expect([...t.docs.jobs.values()]).toHaveLength(1);
    expect(job.prompts.join(' ')).toContain('U0ALICE');
    expect(t.slack.callsOf('views.publish').filter((c) => c.args.user_id === OUTSIDER)).toHaveLength(0);
    expect(t.slack.callsOf('assistant.threads.setSuggestedPrompts')).toHaveLength(0);
    // Each user looked up once at most (cached), however many events they send.
    const lookups = t.slack.callsOf('users.info').filter((c) => c.args.user === OUTSIDER);
    expect(lookups.length).toBeLessThanOrEqual(1);
  });

  it('may use the bot with ALLOW_EXTERNAL_USERS=true', async () => {
    const t = await startTestApp({ env: { ALLOW_EXTERNAL_USERS: 'true' } });
    app = t;
    await t.command({ text: 'Document the export API', user_id: OUTSIDER, team_id: OTHER_TEAM });
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job started' });
    expect(job.prompts).toEqual(['Document the export API']);
  });
});
